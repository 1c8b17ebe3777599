// What every analysis reads: the trace, the shared device timelines and the options.
#pragma once

#include <span>
#include <vector>

#include "analyze/device_timeline.h"
#include "model/kernel_profile.h"
#include "model/metric_series.h"
#include "model/trace.h"

namespace gpuwhy {

struct AnalysisOptions {
  size_t top_n = 10;  // rows in top-kernel / top-gap lists
  DurationNs hta_kernel_wait_ns =
      30 * kNsPerUs;  // HTA consecutive_kernel_delay (applied in µs, see docs)
  DurationNs runtime_outlier_ns = 50 * kNsPerUs;        // HTA runtime_cutoff
  DurationNs launch_delay_outlier_ns = 100 * kNsPerUs;  // HTA launch_delay_cutoff
  DurationNs short_kernel_ns = 10 * kNsPerUs;
  int64_t full_queue_length = 1024;
  // HTA drops the last ProfilerStep by default (often cut short); golden tests set this.
  bool drop_last_step = false;
  // `analyze --hta-compat`: the HTA-style tables (temporal breakdown, idle split by stream,
  // kernel-type breakdown, communication overlap) follow HolisticTraceAnalysis' loader, so a
  // user moving from HTA gets its numbers: the last step dropped (implies drop_last_step),
  // timestamps rounded to µs as HTA rounds them, cuda_sync counted busy in the temporal
  // breakdown. Off: gpuwhy's exact nanosecond view (docs/metrics/temporal.md).
  bool hta_compat = false;
  // Nsight Compute exports given beside the trace (owned by the caller): the top kernels are
  // joined to them (profiled_kernels.h).
  std::span<const KernelProfile> kernel_profiles;
  // Metric logs given beside the trace (owned by the caller): DCGM profiling series with
  // wall-clock times join the sampled GPU activity (gpu_metrics_join.h).
  std::span<const MetricSeriesSet> metric_logs;
};

struct WarmupResult;
struct StepExtents;
struct HostActivity;
struct HtaView;

struct AnalysisInput {
  const Trace& trace;
  const DeviceTimelines& timelines;
  const AnalysisOptions& options;
  // The one-off events and warm-up steps (warmup.h); the step extents leave those steps out.
  // Null: every step is kept (analyses tested on their own).
  const WarmupResult* warmup = nullptr;
  // The step breakdown's extents, once it has run (AnalyzeTrace), for the analyses after it:
  // they read these instead of computing the same extents again (SharedStepExtents).
  const StepExtents* extents = nullptr;
  // The host roles (host_activity.h) and the GPU op view under ViewOptionsFor(options)
  // (hta_view.h), built once by AnalyzeTrace for the analyses that read them
  // (SharedHostActivity, SharedHtaView); null: each computes its own.
  const HostActivity* host = nullptr;
  const HtaView* view = nullptr;
  // Per gpu_ops row, its launch call (Trace::FindLaunch), looked up once by AnalyzeTrace for
  // the analyses that join ops to launches; empty: LaunchOf looks each one up.
  std::span<const CpuSliceId> op_launch;
};

// The runtime/driver call that launched gpu_ops row |op|, or an invalid id.
inline CpuSliceId LaunchOf(const AnalysisInput& input, size_t op) {
  if (op < input.op_launch.size()) return input.op_launch[op];
  return input.trace.FindLaunch(input.trace.gpu_ops.correlation[op]);
}

// Every gpu_ops row's launch call, for AnalysisInput::op_launch.
std::vector<CpuSliceId> LaunchesOfOps(const Trace& trace);

}  // namespace gpuwhy
