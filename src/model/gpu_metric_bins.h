// Sampled hardware metrics of a trace's GPUs (Nsight Systems GPU_METRICS), binned at import
// into bounded per-device series. They are kept as CounterTable rows named
// "gpu_metrics/<metric id>" (pid: the device, ts: the bin start, value: the time-weighted mean
// of the samples over the bin), so the Trace layout stays as it is; the bin width and the
// source are in metadata.extra. The metric ids are the DCGM ones (docs/metric-series.md) where
// the quantity is the same, so analyses treat both sources alike (docs/nsys.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace gpuwhy {

inline constexpr std::string_view kGpuMetricCounterPrefix = "gpu_metrics/";
inline constexpr std::string_view kGpuMetricsBinKey = "gpu_metrics_bin_ns";  // metadata.extra
inline constexpr std::string_view kGpuMetricsSourceKey = "gpu_metrics_source";
inline constexpr std::string_view kGpuMetricsSource = "nsys GPU_METRICS";
// Bins are 100 µs (nsys' default 10 kHz sampling) unless a series would need more than
// kMaxGpuMetricBins; then the width grows in 100 µs steps until it fits.
inline constexpr DurationNs kGpuMetricBinNs = 100 * kNsPerUs;
inline constexpr int64_t kMaxGpuMetricBins = 32768;

// The metric ids GPU_METRICS names map to (all %, 0..100).
namespace gpu_metric {
inline constexpr std::string_view kSmActive = "gpu.sm_active_pct";          // = DCGM 1002
inline constexpr std::string_view kSmIssue = "gpu.sm_issue_pct";            // nsys only
inline constexpr std::string_view kTensorActive = "gpu.tensor_active_pct";  // = DCGM 1004
inline constexpr std::string_view kGrActive = "gpu.gr_engine_active_pct";   // = DCGM 1001
inline constexpr std::string_view kDramReadBw = "gpu.dram_read_bw_pct";
inline constexpr std::string_view kDramWriteBw = "gpu.dram_write_bw_pct";
inline constexpr std::string_view kComputeWarps = "gpu.compute_warps_in_flight_pct";
inline constexpr std::string_view kPcieReadBw = "gpu.pcie_read_bw_pct";
inline constexpr std::string_view kPcieWriteBw = "gpu.pcie_write_bw_pct";
// DCGM only (joined from a log beside the trace, analyze/gpu_metrics_join.h).
inline constexpr std::string_view kSmOccupancy = "gpu.sm_occupancy_pct";  // = DCGM 1003
inline constexpr std::string_view kDramActive = "gpu.dram_active_pct";    // = DCGM 1005
}  // namespace gpu_metric

struct GpuMetricBins {
  std::string metric;  // "gpu.sm_active_pct"
  int32_t device = 0;
  DurationNs bin_ns = kGpuMetricBinNs;
  std::vector<TimeNs> start;  // bin starts, ascending; bins without samples are absent
  std::vector<double> value;

  // Time-weighted mean over the part of [from, to) that bins with samples cover, and that
  // covered time; the mean is 0 when nothing is covered.
  std::pair<double, DurationNs> MeanOver(TimeNs from, TimeNs to) const;
};

// Every binned series of |trace|, ordered by (metric, device). Empty without GPU_METRICS.
std::vector<GpuMetricBins> ReadGpuMetricBins(const Trace& trace);

}  // namespace gpuwhy
