// Collective records (size, algorithm and bus bandwidth) for the communication analysis.
#pragma once

#include <vector>

#include "analyze/communication.h"
#include "analyze/device_timeline.h"

namespace gpuwhy {

// One record per communication kernel that carries (or whose launching op carries)
// collective metadata; |op_kept| filters GPU ops (HTA's last-step drop).
std::vector<CollectiveRecord> BuildCollectiveRecords(const Trace& trace,
                                                     const DeviceTimelines& timelines,
                                                     const std::vector<bool>& op_kept);
std::vector<CollectiveSummary> SummarizeCollectives(const std::vector<CollectiveRecord>& records);

}  // namespace gpuwhy
