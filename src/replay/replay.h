// The replay of one rank (docs/metrics/critical_path.md): its dependency graph simulated with
// the measured durations reproduces each steady step's time (the replay error is the model's
// honesty figure), the critical path of each step says which class of work holds the step,
// and what-if replays (a fix family's waits removed) predict the step after each fix.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis.h"
#include "base/time.h"
#include "model/trace.h"

namespace gpuwhy {

// Where a piece of the critical path goes (kernels by the kernel table's class).
enum class PathClass : uint8_t {
  kHost,
  kLaunch,
  kInput,
  kSync,
  kCopy,
  kCommunication,
  kKernelGemm,
  kKernelConvolution,
  kKernelAttention,
  kKernelElementwise,
  kKernelReduction,
  kKernelNormalization,
  kKernelOther,
};
inline constexpr size_t kPathClassCount = 13;
// "host", "launch", "input", "sync", "copy", "communication", "kernel.gemm", ...
std::string_view PathClassName(PathClass c);

// One fix family applied to the graph and replayed.
enum class WhatIf : uint8_t {
  kInputRemoved,           // DataLoader waits gone (more workers, prefetching)
  kSyncsRemoved,           // host calls no longer wait for the GPU
  kLaunchOverheadRemoved,  // launch calls cost nothing on the host (CUDA graphs, fewer launches)
};
inline constexpr size_t kWhatIfCount = 3;
std::string_view WhatIfName(WhatIf w);  // "input_removed", "syncs_removed", ...

struct ReplayStep {
  int64_t number = 0;
  DurationNs measured_ns = 0;
  DurationNs replayed_ns = 0;
  double error_pct = 0;  // (replayed - measured) / measured * 100
};

struct PathEntry {
  std::string name;  // the host slice, GPU op or launch call on the path
  PathClass path_class = PathClass::kHost;
  DurationNs ns_per_step = 0;  // mean over the steady steps
};

struct WhatIfResult {
  WhatIf what_if = WhatIf::kInputRemoved;
  DurationNs step_ns = 0;    // median replayed step after the fix
  DurationNs saving_ns = 0;  // median over steps of (replayed step - step after the fix)
};

// Two fixes applied together.
struct WhatIfPair {
  WhatIf first = WhatIf::kInputRemoved;
  WhatIf second = WhatIf::kSyncsRemoved;
  DurationNs step_ns = 0;
  DurationNs saving_ns = 0;
};

struct ReplayResult {
  bool available = false;
  std::string not_applicable;     // why not, when !available
  std::vector<ReplayStep> steps;  // the steady steps replayed (at most ReplayOptions::max_steps)
  double error_median_pct = 0;    // of |error_pct|
  double error_max_pct = 0;
  DurationNs measured_median_ns = 0;
  DurationNs replayed_median_ns = 0;
  // The critical path per step (mean over steady steps): its length equals the replayed step.
  DurationNs critical_path_ns = 0;
  std::array<DurationNs, kPathClassCount> class_ns{};
  std::vector<PathEntry> top;  // longest first
  std::vector<WhatIfResult> what_ifs;
  std::vector<WhatIfPair> what_if_pairs;  // each pair of what-ifs that both save time
  // The graph.
  size_t points = 0;
  size_t edges = 0;
  int64_t sync_waits = 0;
  int64_t event_waits = 0;
  int64_t inferred_waits = 0;
  DurationNs launch_latency_ns = 0;
  DurationNs queue_gap_ns = 0;
  int64_t points_in_cycles = 0;

  const WhatIfResult* Find(WhatIf w) const {
    for (const WhatIfResult& r : what_ifs)
      if (r.what_if == w) return &r;
    return nullptr;
  }
};

struct ReplayOptions {
  size_t top_n = 5;
  // A capture with more steady steps replays the middle ones only: the graph then holds those
  // steps' events alone, so memory stays small on a long capture.
  size_t max_steps = 16;
};

ReplayResult ComputeReplay(const Trace& trace, const TraceAnalysis& analysis,
                           const ReplayOptions& options = {});

}  // namespace gpuwhy
