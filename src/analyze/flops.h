// Model FLOPs of a trace: the matrix-multiply class ops (GEMMs, batched GEMMs, attention,
// convolutions) counted once each, from the "flops" profile(with_flops=True) records, else
// from the shapes record_shapes=True stores; then achieved FLOP/s over the utilization window
// and model-FLOPs utilization (MFU) against the device's peak for the ops' precision
// (device_peaks.h). Formulas: docs/metrics/flops.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/kernel_stats.h"
#include "analyze/metric.h"
#include "analyze/utilization.h"
#include "model/device_peaks.h"

namespace gpuwhy {

struct OpFlops {
  std::string name;  // "aten::addmm"
  int64_t count = 0;
  double flops = 0;
};

// One steady-state step: the FLOPs of the counted ops starting in it, over its extent.
struct StepFlops {
  int64_t step = 0;  // ProfilerStep number
  Interval window;   // the step's analysed extent (step_breakdown.h)
  double flops = 0;
  double achieved_flops_per_s = 0;  // flops / (window seconds x devices)
  std::optional<double> mfu_pct;
};

struct FlopsResult {
  bool valid = false;  // some counted op started inside the window
  // The counted window: the steady-state steps (warm-up and a partial tail left out) when the
  // trace has steps, else the utilization window.
  Interval window;
  bool window_from_steps = false;
  double total_flops = 0;
  double recorded_flops = 0;  // of total_flops, from with_flops (the rest from shapes)
  int64_t ops = 0;
  int64_t ops_without_shapes = 0;  // matmul-class ops with neither flops nor shapes
  int64_t steps = 1;               // steps in the window (1 without ProfilerStep)
  double per_step_flops = 0;
  double achieved_flops_per_s = 0;     // total / (window x devices)
  std::optional<Precision> precision;  // of most counted FLOPs, from the input types
  std::string device_name;
  std::optional<double> peak_flops_per_s;  // per device, dense, for precision
  std::optional<double> mfu_pct;
  // While the matrix-multiply kernels run: the counted FLOPs over GEMM + attention kernel time
  // (+ convolution kernel time when convolution FLOPs were counted), per device-second.
  DurationNs matmul_kernel_ns = 0;
  double matmul_kernel_time_pct = 0;  // of all kernel time
  double matmul_kernel_flops_per_s = 0;
  std::optional<double> matmul_mfu_pct;     // matmul_kernel_flops_per_s / peak
  std::vector<OpFlops> by_op;               // by FLOPs, descending
  std::vector<StepFlops> per_step;          // the steady-state steps, in time order
  std::optional<double> mfu_step_mean_pct;  // mean of per_step's MFU, each step weighing one
  std::vector<std::string> not_applicable;
};

// The FLOPs of one op from its recorded input dims, or nullopt when the op has no formula or
// the dims do not fit it.
std::optional<double> FlopsFromShapes(std::string_view op_name,
                                      const std::vector<std::vector<int64_t>>& dims);

struct StepExtents;
// |steps| (may be null): the analysed steps; FLOPs and MFU count over them, per step and in all.
FlopsResult ComputeFlops(const AnalysisInput& input, const UtilizationResult& util,
                         const KernelStatsResult& kernels, MetricSet& metrics,
                         const StepExtents* steps = nullptr);

// What ComputeFlops emits (docs/metrics/flops.md).
namespace metric {
inline constexpr MetricDecl kFlopsTotalTflop{
    "flops.total_tflop", unit::kTflop, kRank | kStep,
    "matrix-multiply class FLOPs of the ops starting in the window (the steady-state steps; "
    "step: in that step), each op counted once"};
inline constexpr MetricDecl kFlopsPerStepTflop{"flops.per_step_tflop", unit::kTflop, kRank,
                                               "flops.total_tflop / steps in the window"};
inline constexpr MetricDecl kFlopsAchievedTflops{
    "flops.achieved_tflops", unit::kTflops, kRank | kStep,
    "flops.total_tflop / (window seconds x devices): per device (step: over the step)"};
inline constexpr MetricDecl kFlopsMfuPct{
    "flops.mfu_pct", unit::kPercent, kRank | kStep,
    "flops.achieved_tflops / the device's dense peak for the ops' precision (rank: over the "
    "steady-state window, time-weighted; step: that step's)"};
inline constexpr MetricDecl kFlopsMfuStepMeanPct{
    "flops.mfu_step_mean_pct", unit::kPercent, kRank,
    "mean of the steady-state steps' flops.mfu_pct, each step weighing one"};
inline constexpr MetricDecl kFlopsRecordedPct{
    "flops.recorded_pct", unit::kPercent, kRank,
    "share of the counted FLOPs read from with_flops records (the rest from shapes)"};
inline constexpr MetricDecl kFlopsMatmulKernelTflops{
    "flops.matmul_kernel_tflops", unit::kTflops, kRank,
    "flops.total_tflop / seconds of the kernels the counted ops launched (by correlation): "
    "the rate while they run"};
inline constexpr MetricDecl kFlopsMatmulMfuPct{
    "flops.matmul_mfu_pct", unit::kPercent, kRank,
    "flops.matmul_kernel_tflops / the device's dense peak for the ops' precision"};
inline constexpr MetricDecl kFlopsMatmulKernelTimePct{
    "flops.matmul_kernel_time_pct", unit::kPercent, kRank,
    "the kernel time flops.matmul_kernel_tflops divides by / all kernel time"};
inline constexpr const MetricDecl* kFlopsMetrics[] = {
    &kFlopsTotalTflop,   &kFlopsPerStepTflop,        &kFlopsAchievedTflops,
    &kFlopsMfuPct,       &kFlopsRecordedPct,         &kFlopsMatmulKernelTflops,
    &kFlopsMatmulMfuPct, &kFlopsMatmulKernelTimePct, &kFlopsMfuStepMeanPct};
}  // namespace metric

}  // namespace gpuwhy
