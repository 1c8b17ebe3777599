// Launch overhead: every runtime/driver launch joined to its GPU ops by correlation
// (HTA get_cuda_kernel_launch_stats, extended to driver, graph and HIP launches), plus the
// per-stream launch queue (HTA queue_length_summary / time_blocked_on_full_queue).
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/launch_queue.h"
#include "analyze/metric.h"
#include "analyze/distribution.h"

namespace gpuwhy {

// One launch call and the GPU ops it enqueued (many for a graph launch).
struct LaunchRecord {
  int64_t correlation = kNoValue;
  CpuSliceId call;
  GpuOpId first_op;  // the earliest-starting op of the call
  int32_t op_count = 0;
  int32_t device = 0;
  int64_t stream = 0;
  bool graph = false;
  DurationNs cpu_duration = 0;  // HTA cpu_duration
  DurationNs gpu_duration = 0;  // sum over the call's ops (HTA gpu_duration for one op)
  DurationNs raw_delay = 0;     // first op start - call end; negative when the op began first
  DurationNs launch_delay = 0;  // max(0, raw_delay), HTA launch_delay
};

struct LaunchCallName {
  std::string name;
  int64_t count = 0;
  DurationNs total = 0;
};

struct LaunchStatsResult {
  std::vector<LaunchRecord> launches;  // by call start
  int64_t calls = 0;
  int64_t gpu_ops = 0;
  int64_t graph_launches = 0;
  int64_t graph_ops = 0;
  DurationNs call_total = 0;
  DistributionSummary delay_ns;     // of launch_delay
  DistributionSummary cpu_duration_ns;
  int64_t runtime_outliers = 0;  // cpu_duration > options.runtime_outlier_ns
  int64_t delay_outliers = 0;    // launch_delay > options.launch_delay_outlier_ns
  int64_t short_kernels = 0;     // gpu_duration < cpu_duration
  std::vector<LaunchCallName> by_name;  // most calls first
  std::vector<EvidenceRange> top_delays;            // call end -> GPU start, longest first
  std::vector<EvidenceRange> top_runtime_outliers;  // the slowest launch calls
  std::vector<StreamQueue> queues;                  // by (device, stream)
  std::vector<std::string> not_applicable;
};

LaunchStatsResult ComputeLaunchStats(const AnalysisInput& input, MetricSet& metrics);

}  // namespace gpuwhy
