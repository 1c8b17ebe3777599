// libFuzzer target for the data-only pickle decoder and the allocator-snapshot importer. Built
// only with clang and -DGPUWHY_BUILD_FUZZERS=ON, e.g.:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_memory_snapshot
//   mkdir -p /tmp/corpus_snapshot && build/fuzz/src/ingest/memory/fuzz_memory_snapshot \
//     -max_total_time=600 -max_len=65536 /tmp/corpus_snapshot ../shared/data/memory/snapshots \
//     tests/data/memory_snapshots
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
#include <cstdint>
#include <cstdlib>

#include "ingest/memory/snapshot_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!gpuwhy::FuzzSnapshotImporter(bytes).empty()) std::abort();
  return 0;
}
