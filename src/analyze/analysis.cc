#include "analyze/analysis.h"

#include <optional>

#include "analyze/host_activity.h"
#include "analyze/hta_view.h"

namespace gpuwhy {

std::vector<CpuSliceId> LaunchesOfOps(const Trace& trace) {
  std::vector<CpuSliceId> launches(trace.gpu_ops.size());
  for (size_t i = 0; i < launches.size(); ++i)
    launches[i] = trace.FindLaunch(trace.gpu_ops.correlation[i]);
  return launches;
}

TraceAnalysis AnalyzeTrace(const Trace& trace, const AnalysisOptions& requested) {
  AnalysisOptions options = requested;
  options.drop_last_step |= options.hta_compat;  // HTA's loader drops the last step
  TraceAnalysis a;
  a.hta_compat = options.hta_compat;
  a.timelines = BuildDeviceTimelines(trace);
  a.warmup = ComputeWarmup(trace);
  a.job = ComputeJobFacts(trace);
  AnalysisInput input{trace, a.timelines, options, &a.warmup};
  // Built once here instead of once per analysis that reads them, and each freed after its
  // last reader: the GPU op view (48 bytes an op) is not kept through the step breakdown and
  // the idle gaps, which peak higher, so the kernel statistics build their own again.
  std::vector<CpuSliceId> op_launch = LaunchesOfOps(trace);  // read by four analyses
  input.op_launch = op_launch;
  std::optional<HtaView> view =
      BuildHtaView(trace, a.timelines, ViewOptionsFor(options), op_launch);
  input.view = &*view;
  a.utilization = ComputeUtilization(input, a.metrics);
  a.temporal = ComputeTemporalBreakdown(input, a.metrics);
  a.hta_idle_split = ComputeHtaIdleSplit(input, a.metrics);
  input.view = nullptr;
  view.reset();
  std::optional<HostActivity> host = ClassifyHostActivity(trace);  // steps and idle gaps
  input.host = &*host;
  a.steps = ComputeStepBreakdown(input, a.metrics);
  input.extents = &a.steps.extents;
  AddWarmupMetrics(a.warmup, a.steps.extents, a.metrics);
  a.idle_gaps = ComputeIdleGaps(input, a.metrics);
  input.host = nullptr;
  host.reset();
  a.kernels = ComputeKernelStats(input, a.metrics);
  input.op_launch = {};
  op_launch = {};
  a.profiled_kernels = ComputeProfiledKernels(input, a.kernels);
  a.sm_efficiency = ComputeSmEfficiency(input, a.utilization, a.metrics);
  a.flops = ComputeFlops(input, a.utilization, a.kernels, a.metrics, &a.steps.extents);
  a.gpu_metrics = ComputeGpuMetrics(input, a.utilization, a.metrics);
  a.launch = ComputeLaunchStats(input, a.metrics, LaunchRecords::kDrop);
  // One record per launch call (64 bytes), read by nothing after its own analysis: freed here
  // rather than after the diagnosis (79 MB through the rest of `analyze` on a 1.2M-kernel
  // Nsight export; issue 37).
  a.launch.launches = {};
  a.sync_copies = ComputeSyncCopies(input, a.metrics);
  a.communication = ComputeCommunication(input, a.metrics);
  a.memory = ComputeMemoryUsage(input, a.metrics);
  a.data_quality = ComputeDataQuality(input, a.metrics);
  a.series = ComputeTimeSeries(input, a.utilization, a.idle_gaps);
  a.metrics.SetRank(trace.rank.rank);
  return a;
}

}  // namespace gpuwhy
