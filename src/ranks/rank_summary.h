// The per-rank summary: everything the cross-rank analysis needs from one rank, small
// enough to keep for a thousand ranks. A trace is reduced to it right after its analyses
// and then freed, so memory is bounded by the ranks in flight, not the ranks in the job.
// It is also the `gpuwhy analyze --summary` file format (docs/rank-summary.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/metric.h"
#include "base/time.h"
#include "model/trace.h"

namespace gpuwhy {

// Bumped on any incompatible change of the JSON file; readers refuse other versions.
inline constexpr int64_t kRankSummaryFormatVersion = 1;

// One analysed step on this rank's own clock.
struct RankStepTiming {
  int64_t number = 0;
  TimeNs start = 0;              // ProfilerStep start on the host
  TimeNs end = 0;                // pushed to the last GPU op the step launched
  DurationNs compute_ns = 0;     // |∪ computation kernels| in the step (all devices)
  DurationNs input_wait_ns = 0;  // device idle while the host waited for input
};

// One communication kernel (one rank's part of a collective) on this rank's own clock.
struct RankCollectiveTiming {
  int64_t step = kNoValue;    // the step whose extent holds the kernel start; kNoValue: none
  std::string kind;           // from the kernel name: "AllReduce", "SendRecv", "AllGather", ...
  std::string process_group;  // "" when the trace does not say
  int32_t device = 0;
  TimeNs start = 0;  // arrival: the NCCL kernel starts when this rank reaches the collective
  TimeNs end = 0;
  int64_t bytes = kNoValue;       // nccl-tests "size", from the collective's metadata
  int64_t group_size = kNoValue;  // ranks in the collective, from the metadata
  // From the step start to the arrival, on the kernel's device: the straggler causes.
  DurationNs compute_before_ns = 0;     // |∪ computation kernels|
  DurationNs input_wait_before_ns = 0;  // idle time attributed to input wait
};

// Total time of one kernel name on this rank (computation kernels only).
struct KernelTotal {
  std::string name;
  int64_t count = 0;
  DurationNs total_ns = 0;
};

// A finding of the single-rank diagnosis, reduced to what the cross-rank table shows.
struct SummaryFinding {
  std::string id;
  std::string severity;  // "info" … "critical"
  std::string title;
  DurationNs recoverable_ns_per_step = 0;
};

struct RankSummary {
  std::string path;
  int64_t rank = kNoValue;
  RankSource rank_source = RankSource::kUnknown;
  int64_t world_size = kNoValue;
  std::string device_name;      // the first device that ran GPU ops
  std::vector<Metric> metrics;  // rank-scope metrics of the single-rank analyses
  std::vector<RankStepTiming> steps;
  std::vector<RankCollectiveTiming> collectives;  // by start
  std::vector<KernelTotal> kernels;               // most time first, at most kMaxKernelNames
  std::vector<SummaryFinding> findings;           // ranked as the diagnosis ranked them

  static constexpr size_t kMaxKernelNames = 64;

  double MetricValue(std::string_view id, double fallback) const;
};

// The collective kind a communication kernel's name states
// ("ncclKernel_AllReduce_RING_LL_Sum_float" and "ncclDevKernel_AllReduce_Sum_f32_RING_LL" →
// "AllReduce"); "" when it names none.
std::string CollectiveKindFromKernel(std::string_view kernel_name);

// Reduces one analysed trace (before DropRenderUnused: it reads the timelines and the
// collectives). Findings are filled by the caller (diagnose sits above this layer).
RankSummary SummarizeRank(const Trace& trace, const TraceAnalysis& analysis);

}  // namespace gpuwhy
