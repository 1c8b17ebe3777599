// GPU utilization in both conventions, named: kernel utilization (time covered by kernels,
// as the PyTorch TensorBoard plugin reports it) and GPU-op utilization (kernels + memcpy +
// memset, as HTA and Nsight Systems count busy time), over the profiled steps. cuda_sync
// waits are never busy.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"

namespace gpuwhy {

struct UtilizationShare {
  DurationNs kernel_busy_ns = 0;  // |∪ kernels ∩ window|
  DurationNs gpu_op_busy_ns = 0;  // |∪ (kernels, memcpy, memset) ∩ window|
  double kernel_pct = 0;
  double gpu_op_pct = 0;
};

struct DeviceUtilization {
  int32_t device = 0;
  UtilizationShare share;
};

struct StepUtilization {
  int64_t step = 0;        // ProfilerStep number
  Interval window;         // host start to max(host end, device end)
  UtilizationShare share;  // averaged over the active devices
};

struct UtilizationResult {
  bool valid = false;  // false when the trace ran no GPU op
  // First step host start to last step end (device end or host end, whichever is later);
  // the whole trace span when the steps are synthesized.
  Interval window;
  bool window_from_steps = false;
  UtilizationShare rank;  // busy times summed over devices; pct = busy / (window × devices)
  std::vector<DeviceUtilization> per_device;
  std::vector<StepUtilization> per_step;
  std::vector<std::string> not_applicable;
};

UtilizationResult ComputeUtilization(const AnalysisInput& input, MetricSet& metrics);

// What ComputeUtilization emits (docs/metrics/utilization.md).
namespace metric {
inline constexpr MetricDecl kUtilWindowMs{
    "util.window_ms", unit::kMs, kRank,
    "first kept step host start to the last kept step end (the trace span without ProfilerStep)"};
inline constexpr MetricDecl kUtilKernelPct{
    "util.kernel_pct", unit::kPercent, kRank | kDevice | kStep,
    "|union of kernels within the window| / window (rank, step: / window x devices)"};
inline constexpr MetricDecl kUtilGpuOpPct{"util.gpu_op_pct", unit::kPercent,
                                          kRank | kDevice | kStep,
                                          "|union of kernels, memcpy and memset within the window| "
                                          "/ window (rank, step: / window x devices)"};
inline constexpr MetricDecl kUtilKernelBusyMs{
    "util.kernel_busy_ms", unit::kMs, kRank | kDevice,
    "kernel-covered time in the window (rank: summed over devices)"};
inline constexpr MetricDecl kUtilGpuOpBusyMs{
    "util.gpu_op_busy_ms", unit::kMs, kRank | kDevice,
    "GPU-op-covered time in the window (rank: summed over devices)"};
inline constexpr const MetricDecl* kUtilizationMetrics[] = {
    &kUtilWindowMs, &kUtilKernelPct, &kUtilGpuOpPct, &kUtilKernelBusyMs, &kUtilGpuOpBusyMs};
}  // namespace metric

}  // namespace gpuwhy
