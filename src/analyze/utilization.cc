#include "analyze/utilization.h"
#include "base/percent.h"

#include <algorithm>

namespace gpuwhy {
namespace {

// Busy time of every device inside |window|, summed, with percentages of window × devices.
UtilizationShare Share(const DeviceTimelines& timelines, Interval window) {
  UtilizationShare s;
  for (const auto& [device, t] : timelines.by_device) {
    s.kernel_busy_ns += t.kernels.CoveredLength(window);
    s.gpu_op_busy_ns += t.all_ops.CoveredLength(window);
  }
  DurationNs capacity = window.length() * static_cast<DurationNs>(timelines.by_device.size());
  s.kernel_pct = PercentOf(s.kernel_busy_ns, capacity);
  s.gpu_op_pct = PercentOf(s.gpu_op_busy_ns, capacity);
  return s;
}

void Emit(const UtilizationShare& s, MetricScope scope, MetricSet& metrics) {
  metrics.Add(metric::kUtilKernelPct, scope, s.kernel_pct);
  metrics.Add(metric::kUtilGpuOpPct, scope, s.gpu_op_pct);
  metrics.Add(metric::kUtilKernelBusyMs, scope, NsToMs(s.kernel_busy_ns));
  metrics.Add(metric::kUtilGpuOpBusyMs, scope, NsToMs(s.gpu_op_busy_ns));
}

Interval StepWindow(const StepTable::Row& r) {
  return {r.host_start, std::max(r.host_end, r.device_end)};
}

}  // namespace

UtilizationResult ComputeUtilization(const AnalysisInput& input, MetricSet& metrics) {
  UtilizationResult result;
  const Trace& trace = input.trace;
  if (input.timelines.by_device.empty()) {
    result.not_applicable.push_back("utilization: the trace has no GPU kernels, memcpy or memset");
    return result;
  }
  std::vector<StepTable::Row> steps = trace.steps.rows;  // sorted by host start
  if (input.options.drop_last_step && !trace.steps.synthesized && steps.size() >= 2)
    steps.pop_back();
  result.window_from_steps = !trace.steps.synthesized && !steps.empty();
  if (result.window_from_steps) {
    result.window = {steps.front().host_start, steps.front().host_start};
    for (const StepTable::Row& r : steps)
      result.window.end = std::max(result.window.end, StepWindow(r).end);
  } else {
    result.window = trace.span();
    result.not_applicable.push_back(
        "utilization per step: the trace has no ProfilerStep; window = trace span");
  }
  if (result.window.length() <= 0) {
    result.not_applicable.push_back("utilization: empty window");
    return result;
  }
  result.valid = true;
  metrics.Add(metric::kUtilWindowMs, MetricScope::Rank(), NsToMs(result.window.length()));
  result.rank = Share(input.timelines, result.window);
  Emit(result.rank, MetricScope::Rank(), metrics);
  for (const auto& [device, t] : input.timelines.by_device) {
    DeviceUtilization d{device, {}};
    d.share.kernel_busy_ns = t.kernels.CoveredLength(result.window);
    d.share.gpu_op_busy_ns = t.all_ops.CoveredLength(result.window);
    d.share.kernel_pct = PercentOf(d.share.kernel_busy_ns, result.window.length());
    d.share.gpu_op_pct = PercentOf(d.share.gpu_op_busy_ns, result.window.length());
    result.per_device.push_back(d);
    Emit(d.share, MetricScope::Device(device), metrics);
  }
  if (!result.window_from_steps) return result;
  for (const StepTable::Row& r : steps) {
    StepUtilization s{r.number, StepWindow(r), Share(input.timelines, StepWindow(r))};
    result.per_step.push_back(s);
    metrics.Add(metric::kUtilKernelPct, MetricScope::Step(r.number), s.share.kernel_pct);
    metrics.Add(metric::kUtilGpuOpPct, MetricScope::Step(r.number), s.share.gpu_op_pct);
  }
  return result;
}

}  // namespace gpuwhy
