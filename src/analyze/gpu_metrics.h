// Sampled hardware activity of the GPUs over the analysed steps, from the series Nsight
// Systems records with --gpu-metrics-devices (model/gpu_metric_bins.h), else from DCGM
// profiling fields of a log given beside the trace and joined by wall clock
// (gpu_metrics_join.h): time-weighted mean SM active, SM issue, SM occupancy, tensor active,
// DRAM bandwidth and GR active, per device and per step. These are sampled device counters,
// unlike the launch-shape estimates of sm_efficiency.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"
#include "analyze/utilization.h"

namespace gpuwhy {

// Means over a window, each present when its series covers part of the window. % (0..100).
struct GpuMetricMeans {
  std::optional<double> sm_active_pct;
  std::optional<double> sm_issue_pct;
  std::optional<double> sm_occupancy_pct;  // resident warps / max warps (DCGM 1003)
  std::optional<double> tensor_active_pct;
  // DRAM read + write bandwidth, % of peak (nsys); DCGM's DRAM active (cycles the memory
  // interface sends or receives) where only that was sampled.
  std::optional<double> dram_bw_pct;
  std::optional<double> gr_active_pct;
  double coverage_pct = 0;  // share of the window the SM-active (else GR-active) bins cover
};

struct DeviceGpuMetrics {
  int32_t device = 0;
  GpuMetricMeans means;
};

struct StepGpuMetrics {
  int64_t step = 0;
  GpuMetricMeans means;  // mean over the devices
};

struct GpuMetricsResult {
  bool valid = false;  // some series covers part of the window
  // Where the samples came from, in full ("nsys GPU_METRICS (sampled)", "dcgm-exporter
  // dcgm.prom (100 ms samples, joined by wall clock; ...)") and as a title's short label.
  std::string source;
  std::string source_label;  // "nsys GPU_METRICS", "dcgm-exporter"
  Interval window;           // the utilization window
  DurationNs bin_ns = 0;
  std::vector<DeviceGpuMetrics> per_device;
  std::vector<StepGpuMetrics> per_step;
  GpuMetricMeans rank;  // mean over per_device
  std::vector<std::string> not_applicable;
};

GpuMetricsResult ComputeGpuMetrics(const AnalysisInput& input, const UtilizationResult& util,
                                   MetricSet& metrics);

// What ComputeGpuMetrics emits (docs/metrics/gpu_metrics.md).
namespace metric {
inline constexpr MetricDecl kGpuMetricsSmActivePct{
    "gpu_metrics.sm_active_pct", unit::kPercent, kRank | kDevice | kStep,
    "time-weighted mean of the sampled SM Active (SMs with a warp resident) over the window "
    "(rank, step: mean over devices)"};
inline constexpr MetricDecl kGpuMetricsSmIssuePct{
    "gpu_metrics.sm_issue_pct", unit::kPercent, kRank | kDevice | kStep,
    "time-weighted mean of the sampled SM Issue (SM cycles issuing an instruction)"};
inline constexpr MetricDecl kGpuMetricsSmOccupancyPct{
    "gpu_metrics.sm_occupancy_pct", unit::kPercent, kRank | kDevice | kStep,
    "time-weighted mean of the sampled SM occupancy (resident warps / maximum warps, over all "
    "SMs; DCGM 1003)"};
inline constexpr MetricDecl kGpuMetricsTensorActivePct{
    "gpu_metrics.tensor_active_pct", unit::kPercent, kRank | kDevice | kStep,
    "time-weighted mean of the sampled Tensor Active (tensor pipe busy)"};
inline constexpr MetricDecl kGpuMetricsDramBwPct{
    "gpu_metrics.dram_bw_pct", unit::kPercent, kRank | kDevice | kStep,
    "time-weighted mean DRAM read + write bandwidth, % of peak"};
inline constexpr MetricDecl kGpuMetricsGrActivePct{
    "gpu_metrics.gr_active_pct", unit::kPercent, kRank | kDevice | kStep,
    "time-weighted mean of the sampled GR Active (graphics/compute engine busy)"};
inline constexpr MetricDecl kGpuMetricsCoveragePct{
    "gpu_metrics.coverage_pct", unit::kPercent, kRank | kDevice,
    "share of the window the SM Active (else GR Active) samples cover"};
inline constexpr const MetricDecl* kGpuMetricsMetrics[] = {
    &kGpuMetricsSmActivePct,     &kGpuMetricsSmIssuePct, &kGpuMetricsSmOccupancyPct,
    &kGpuMetricsTensorActivePct, &kGpuMetricsDramBwPct,  &kGpuMetricsGrActivePct,
    &kGpuMetricsCoveragePct};
}  // namespace metric

}  // namespace gpuwhy
