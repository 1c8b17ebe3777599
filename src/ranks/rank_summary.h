// The per-rank summary: everything the cross-rank analysis needs from one rank, small
// enough to keep for a thousand ranks. A trace is reduced to it right after its analyses
// and then freed, so memory is bounded by the ranks in flight, not the ranks in the job.
// It is also the `gpuwhy analyze --summary` file format (docs/rank-summary.md), and what
// `gpuwhy diff` compares of a run, made from a trace here or read back from a JSON report
// (report/json_report_reader.h).
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
  // The exclusive step breakdown (docs/metrics/steps.md), what `gpuwhy diff` compares: the
  // analysed extent's length (step.time_ms; the extent starts after `start` when GPU work of
  // the step before still runs) and each category's time, in RankSummary::step_categories
  // order. kNoValue and empty where the breakdown did not run. Not in the --summary file.
  DurationNs time_ns = kNoValue;
  std::vector<DurationNs> category_ns;
};

// One communication kernel (one rank's part of a collective) on this rank's own clock.
struct RankCollectiveTiming {
  int64_t step = kNoValue;  // the step whose extent holds the kernel start; kNoValue: none
  // That step's position in RankSummary::steps: numbers repeat in concatenated captures, the
  // position does not. kNoValue: none, or a summary written before it was recorded.
  int64_t step_index = kNoValue;
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

// Total time of one kernel name on this rank.
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
  std::vector<std::string> step_categories;       // of RankStepTiming::category_ns ("kernel", ...)
  std::vector<RankCollectiveTiming> collectives;  // by start
  // Computation kernels over the whole trace, most time first, at most kMaxKernelNames: what
  // the straggler analysis compares across ranks.
  std::vector<KernelTotal> kernels;
  // Every kernel name of the kernel statistics (all kernel kinds, in the analysed window; most
  // time first): what `gpuwhy diff` compares. Kept when SummarizeRank is asked to
  // (SummaryKernelStats::kEveryName); not in the --summary file.
  std::vector<KernelTotal> kernel_stats;
  bool kernel_stats_complete = false;    // true: every name (a JSON report lists its top N only)
  std::vector<SummaryFinding> findings;  // ranked as the diagnosis ranked them
  size_t ranks_in_input = 1;  // > 1: a JSON report of several ranks, summarized by its first

  static constexpr size_t kMaxKernelNames = 64;

  double MetricValue(std::string_view id, double fallback) const;
};

// The collective kind a communication kernel's name states
// ("ncclKernel_AllReduce_RING_LL_Sum_float" and "ncclDevKernel_AllReduce_Sum_f32_RING_LL" →
// "AllReduce"); "" when it names none.
std::string CollectiveKindFromKernel(std::string_view kernel_name);

// Whether a summary keeps every kernel name of the kernel statistics (RankSummary::kernel_stats):
// `gpuwhy diff` compares them all, while a thousand ranks' names would not be small.
enum class SummaryKernelStats { kOmit, kEveryName };

// Reduces one analysed trace (before DropRenderUnused: it reads the timelines and the
// collectives). Findings are filled by the caller (diagnose sits above this layer).
RankSummary SummarizeRank(const Trace& trace, const TraceAnalysis& analysis,
                          SummaryKernelStats kernel_stats = SummaryKernelStats::kOmit);

}  // namespace gpuwhy
