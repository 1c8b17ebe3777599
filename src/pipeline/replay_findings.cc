#include "pipeline/replay_findings.h"

#include <optional>
#include <string_view>

namespace gpuwhy {
namespace {

// The what-if that models each finding's first fix.
std::optional<WhatIf> WhatIfOfFinding(std::string_view id) {
  if (id == "input.dataloader_wait") return WhatIf::kInputRemoved;
  if (id == "sync.blocking_calls" || id == "sync.scalar_reads" || id == "launch.sync_points")
    return WhatIf::kSyncsRemoved;
  if (id == "launch.launch_bound" || id == "launch.tiny_kernels")
    return WhatIf::kLaunchOverheadRemoved;
  return std::nullopt;
}

}  // namespace

void AttachReplayedSavings(const ReplayResult& replay, Diagnosis& diagnosis) {
  if (!replay.available) return;
  for (Finding& f : diagnosis.findings) {
    std::optional<WhatIf> w = WhatIfOfFinding(f.id);
    if (!w) continue;
    const WhatIfResult* r = replay.Find(*w);
    f.replayed_saving_ns_per_step = r != nullptr ? std::max<DurationNs>(0, r->saving_ns) : 0;
  }
}

}  // namespace gpuwhy
