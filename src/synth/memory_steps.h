// Synthetic memory state of a training loop with known ground truth, for the memory rules'
// tests: |steps| steps 1000 ns apart, |base_mib| of parameters alive from the start, each step a
// 1 GiB activation made and freed, and |leak_mib| more left alive after it (0: healthy caching of
// the step's peak). The same loop as a profiler memory timeline and as an allocator snapshot
// with its trace (one segment of |reserved_mib| holding what is alive at the end).
#pragma once

#include <cstdint>

#include "model/memory_snapshot.h"
#include "model/memory_timeline.h"

namespace gpuwhy {

MemoryTimeline SyntheticStepTimeline(int steps, int64_t base_mib, int64_t leak_mib);
MemorySnapshot SyntheticStepSnapshot(int steps, int64_t base_mib, int64_t leak_mib,
                                     int64_t reserved_mib);

}  // namespace gpuwhy
