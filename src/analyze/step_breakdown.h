// Exclusive step time breakdown, as the PyTorch TensorBoard plugin's overview computes it:
// every nanosecond of a step goes to the first of Kernel > Memcpy > Memset > Communication >
// Runtime > DataLoader > CPU Exec > Other that covers it, so categories sum to step time.
// Steps are the plugin's device-extended ProfilerStep spans (a step ends when the last GPU
// op it launched ends). See docs/metrics/steps.md.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"

namespace gpuwhy {

enum class StepCategory {
  kKernel,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kOther,
};
inline constexpr size_t kStepCategoryCount = 8;
// "kernel", "memcpy", ..., "cpu_exec", "other": the metric id infix.
std::string_view StepCategoryName(StepCategory c);

struct StepExtent {
  int64_t number = 0;  // N of ProfilerStep#N (0 for the synthesized whole-trace step)
  Interval host;       // the ProfilerStep span on the host
  Interval window;     // the analysed extent: host span pushed to its last GPU op's end
  int64_t gpu_op_count = 0;
};

struct StepExtents {
  std::vector<StepExtent> steps;  // kept steps, in time order, contiguous and disjoint
  std::vector<int64_t> excluded;  // numbers of tail (or one-off) steps left out (see the doc)
  std::vector<int64_t> warmup;    // numbers of leading steps left out as warm-up (warmup.h)
  // False when the capture holds nothing but warm-up: every kept step is warm-up, or a
  // capture without ProfilerStep is mostly one-off time. The steps are kept for the metrics;
  // per-step rules are not assessed.
  bool steady_state = true;
  bool synthesized = false;      // no ProfilerStep: one step spans the trace
  bool from_optimizer = false;   // no ProfilerStep: the steps are optimizer iterations
  bool device_extended = false;  // at least one step launched GPU work
  // > 0: the last step was left out because its host span ran on this much longer than the
  // other steps' after its work (the profiler's own stop and flush).
  DurationNs last_step_flush_ns = 0;
  std::vector<std::string> notes;
  // First kept step start to last kept step end; empty when there is no step.
  Interval Window() const;
};

// The plugin's step extents (torch_tb_profiler StepParser._update_steps_duration).
// |warmup| (may be null) names the leading warm-up steps to leave out.
StepExtents ComputeStepExtents(const Trace& trace, const AnalysisOptions& options,
                               const WarmupResult* warmup = nullptr);
// |input|'s shared extents when set, else ComputeStepExtents into |scratch|.
const StepExtents& SharedStepExtents(const AnalysisInput& input, StepExtents& scratch);

struct StepCosts {
  int64_t number = 0;
  Interval window;
  DurationNs total_ns = 0;
  std::array<DurationNs, kStepCategoryCount> ns{};  // sums to total_ns
};

struct StepBreakdownResult {
  StepExtents extents;
  std::vector<StepCosts> steps;
  // Means over kept steps. mean_total_ns is the step time (the device-extended extent);
  // mean_host_ns the ProfilerStep host ranges of the same steps, what `gpuwhy info` shows.
  double mean_total_ns = 0;
  double mean_host_ns = 0;
  std::array<double, kStepCategoryCount> mean_ns{};
  DurationNs min_ns = 0;
  DurationNs median_ns = 0;
  DurationNs max_ns = 0;
  std::vector<EvidenceRange> slowest_steps;  // kind "step", label "ProfilerStep#N: 212.3 ms"
  std::vector<std::string> not_applicable;
};

StepBreakdownResult ComputeStepBreakdown(const AnalysisInput& input, MetricSet& metrics);

// What ComputeStepBreakdown emits (docs/metrics/steps.md).
namespace metric {
inline constexpr MetricDecl kStepCount{"step.count", unit::kCount, kRank, "steps analysed"};
inline constexpr MetricDecl kStepExcludedCount{
    "step.excluded_count", unit::kCount, kRank,
    "tail steps left out (no GPU op, cut last step, drop_last_step) and later steps one-off "
    "work fills (warmup.h)"};
inline constexpr MetricDecl kStepTimeMs{"step.time_ms", unit::kMs, kRank | kStep,
                                        "step extent end - start (rank: mean over steps)"};
inline constexpr MetricDecl kStepCategoryMs{
    "step.{category}_ms", unit::kMs, kRank | kStep,
    "time claimed by that exclusive category (rank: mean over steps)"};
inline constexpr MetricDecl kStepCategoryPct{
    "step.{category}_pct", unit::kPercent, kRank | kStep,
    "category time / step time (rank: mean category / mean step time)"};
inline constexpr MetricDecl kStepHostTimeMs{
    "step.host_time_ms", unit::kMs, kRank,
    "ProfilerStep host range end - start of the analysed steps, mean (step.time_ms extends it "
    "to the GPU work the step launched)"};
inline constexpr MetricDecl kStepTimeMinMs{"step.time_min_ms", unit::kMs, kRank,
                                           "shortest analysed step"};
inline constexpr MetricDecl kStepTimeMedianMs{"step.time_median_ms", unit::kMs, kRank,
                                              "median analysed step time"};
inline constexpr MetricDecl kStepTimeMaxMs{"step.time_max_ms", unit::kMs, kRank,
                                           "longest analysed step"};
inline constexpr const MetricDecl* kStepBreakdownMetrics[] = {
    &kStepCount,       &kStepExcludedCount, &kStepTimeMs,       &kStepCategoryMs,
    &kStepCategoryPct, &kStepTimeMinMs,     &kStepTimeMedianMs, &kStepTimeMaxMs};
}  // namespace metric

}  // namespace gpuwhy
