// Launch overhead: every runtime/driver launch joined to its GPU ops by correlation
// (HTA get_cuda_kernel_launch_stats, extended to driver, graph and HIP launches), plus the
// per-stream launch queue (HTA queue_length_summary / time_blocked_on_full_queue).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/distribution.h"
#include "analyze/launch_queue.h"
#include "analyze/metric.h"

namespace gpuwhy {

// One launch call and the GPU ops it enqueued (many for a graph launch).
struct LaunchRecord {
  int64_t correlation = kNoValue;
  int64_t stream = 0;
  DurationNs cpu_duration = 0;  // HTA cpu_duration
  DurationNs gpu_duration = 0;  // sum over the call's ops (HTA gpu_duration for one op)
  DurationNs raw_delay = 0;     // first op start - call end; negative when the op began first
  CpuSliceId call;
  GpuOpId first_op;  // the earliest-starting op of the call
  int32_t op_count = 0;
  int32_t device = 0;
  bool graph = false;
  // HTA launch_delay. Derived, not stored: one record per launch call, held through the
  // queue analysis (64 bytes a record, was 72).
  DurationNs launch_delay() const { return std::max<DurationNs>(0, raw_delay); }
};
static_assert(sizeof(LaunchRecord) == 64);

struct LaunchCallName {
  std::string name;
  int64_t count = 0;
  DurationNs total = 0;
};

struct LaunchStatsResult {
  std::vector<LaunchRecord> launches;  // by call start; empty with LaunchRecords::kDrop
  int64_t calls = 0;
  int64_t gpu_ops = 0;
  int64_t graph_launches = 0;
  int64_t graph_ops = 0;
  DurationNs call_total = 0;
  DistributionSummary delay_ns;  // of launch_delay
  DistributionSummary cpu_duration_ns;
  int64_t runtime_outliers = 0;           // cpu_duration > options.runtime_outlier_ns
  int64_t delay_outliers = 0;             // launch_delay > options.launch_delay_outlier_ns
  int64_t short_kernels = 0;              // gpu_duration < cpu_duration
  std::vector<LaunchCallName> by_name;    // most calls first
  std::vector<EvidenceRange> top_delays;  // call end -> GPU start, longest first
  std::vector<EvidenceRange> top_runtime_outliers;  // the slowest launch calls
  std::vector<StreamQueue> queues;                  // by (device, stream)
  std::vector<std::string> not_applicable;
};

// Whether the result keeps its per-launch records (`launches`). No analysis, finding or
// renderer reads them after this one: AnalyzeTrace drops them once the queues are counted.
enum class LaunchRecords { kKeep, kDrop };

LaunchStatsResult ComputeLaunchStats(const AnalysisInput& input, MetricSet& metrics,
                                     LaunchRecords records = LaunchRecords::kKeep);

// What ComputeLaunchStats emits (docs/metrics/launch.md).
namespace metric {
inline constexpr MetricDecl kLaunchCalls{
    "launch.calls", unit::kCount, kRank | kStep,
    "launch calls joined to at least one GPU op (step: the call starts in the step's host extent)"};
inline constexpr MetricDecl kLaunchGpuOps{"launch.gpu_ops", unit::kCount, kRank,
                                          "GPU ops reached by the launches"};
inline constexpr MetricDecl kLaunchGraphLaunches{"launch.graph_launches", unit::kCount, kRank,
                                                 "graph launch calls"};
inline constexpr MetricDecl kLaunchCallTotalMs{"launch.call_total_ms", unit::kMs, kRank | kStep,
                                               "total duration of the launch calls"};
inline constexpr MetricDecl kLaunchCallMeanUs{"launch.call_mean_us", unit::kUs, kRank,
                                              "mean launch call duration"};
inline constexpr MetricDecl kLaunchCallP95Us{"launch.call_p95_us", unit::kUs, kRank,
                                             "95th percentile of the launch call duration"};
inline constexpr MetricDecl kLaunchDelayMeanUs{"launch.delay_mean_us", unit::kUs, kRank,
                                               "mean of max(0, first GPU op start - call end)"};
inline constexpr MetricDecl kLaunchDelayP50Us{"launch.delay_p50_us", unit::kUs, kRank,
                                              "median launch delay"};
inline constexpr MetricDecl kLaunchDelayP95Us{"launch.delay_p95_us", unit::kUs, kRank,
                                              "95th percentile of the launch delay"};
inline constexpr MetricDecl kLaunchDelayMaxUs{"launch.delay_max_us", unit::kUs, kRank,
                                              "longest launch delay"};
inline constexpr MetricDecl kLaunchRuntimeOutliers{"launch.runtime_outliers", unit::kCount, kRank,
                                                   "calls longer than options.runtime_outlier_ns"};
inline constexpr MetricDecl kLaunchRuntimeOutlierPct{"launch.runtime_outlier_pct", unit::kPercent,
                                                     kRank, "runtime outliers / launch calls"};
inline constexpr MetricDecl kLaunchDelayOutliers{
    "launch.delay_outliers", unit::kCount, kRank,
    "launches whose delay exceeds options.launch_delay_outlier_ns"};
inline constexpr MetricDecl kLaunchDelayOutlierPct{"launch.delay_outlier_pct", unit::kPercent,
                                                   kRank, "delay outliers / launch calls"};
inline constexpr MetricDecl kLaunchShortKernels{
    "launch.short_kernels", unit::kCount, kRank,
    "launches whose GPU time is shorter than the call itself"};
inline constexpr MetricDecl kLaunchShortKernelPct{"launch.short_kernel_pct", unit::kPercent, kRank,
                                                  "short-kernel launches / launch calls"};
inline constexpr MetricDecl kLaunchQueueLengthMean{
    "launch.queue_length_mean", unit::kCount, kStream,
    "mean of the queue length sampled at each change"};
inline constexpr MetricDecl kLaunchQueueLengthP50{"launch.queue_length_p50", unit::kCount, kStream,
                                                  "median of the sampled queue length"};
inline constexpr MetricDecl kLaunchQueueLengthMax{"launch.queue_length_max", unit::kCount, kStream,
                                                  "largest sampled queue length"};
inline constexpr MetricDecl kLaunchQueueLengthTimeMean{
    "launch.queue_length_time_mean", unit::kCount, kStream,
    "queue length averaged over time between its first and last change"};
inline constexpr MetricDecl kLaunchQueueFullMs{
    "launch.queue_full_ms", unit::kMs, kStream,
    "time with the queue length at or above options.full_queue_length"};
inline constexpr MetricDecl kLaunchQueueFullPct{"launch.queue_full_pct", unit::kPercent, kStream,
                                                "full-queue time / trace span"};
inline constexpr const MetricDecl* kLaunchStatsMetrics[] = {
    &kLaunchCalls,           &kLaunchGpuOps,
    &kLaunchGraphLaunches,   &kLaunchCallTotalMs,
    &kLaunchCallMeanUs,      &kLaunchCallP95Us,
    &kLaunchDelayMeanUs,     &kLaunchDelayP50Us,
    &kLaunchDelayP95Us,      &kLaunchDelayMaxUs,
    &kLaunchRuntimeOutliers, &kLaunchRuntimeOutlierPct,
    &kLaunchDelayOutliers,   &kLaunchDelayOutlierPct,
    &kLaunchShortKernels,    &kLaunchShortKernelPct,
    &kLaunchQueueLengthMean, &kLaunchQueueLengthP50,
    &kLaunchQueueLengthMax,  &kLaunchQueueLengthTimeMean,
    &kLaunchQueueFullMs,     &kLaunchQueueFullPct};
}  // namespace metric

}  // namespace gpuwhy
