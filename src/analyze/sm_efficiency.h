// Estimated SM efficiency and achieved occupancy from the launch arguments Kineto records with
// each kernel ("blocks per SM", "est. achieved occupancy %"), with the PyTorch TensorBoard
// plugin's definitions (tb_plugin gpu_metrics_parser.py), and the kernels whose grid has fewer
// blocks than the GPU has SMs. Both are estimates from the launch shape, not measured counters:
// Nsight Compute (roofline.h) and DCGM's SM activity measure what these estimate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"
#include "analyze/utilization.h"

namespace gpuwhy {

// Kernel time inside the window, as sums over kernels clipped to it.
struct GridFillTotals {
  DurationNs kernel_ns = 0;       // every kernel
  DurationNs with_blocks_ns = 0;  // kernels that carry "blocks per SM" > 0
  // ... that are not communication kernels: NCCL/RCCL run one block per channel by design, so
  // their grids say nothing about how well the model's kernels fill the GPU.
  DurationNs compute_with_blocks_ns = 0;
  DurationNs small_grid_ns = 0;   // ... of those, with blocks per SM < 1: fewer blocks than SMs
  double small_grid_fill_ns = 0;  // Σ blocks per SM × time over the small grids
  double occupancy_pct_ns = 0;    // Σ occupancy % × time over kernels with an occupancy
  DurationNs with_occupancy_ns = 0;
};

struct DeviceSmEfficiency {
  int32_t device = 0;
  // Σ over the device timeline of min(Σ blocks per SM of the kernels running, 1) × dt, over
  // the window; nullopt when no kernel of the device carries blocks per SM.
  std::optional<double> est_sm_efficiency_pct;
  // Σ occupancy × time / Σ time over the kernels that carry "est. achieved occupancy %".
  std::optional<double> est_occupancy_pct;
  GridFillTotals totals;
};

// One kernel name whose launches have fewer blocks than SMs, summed over the window.
struct SmallGridKernel {
  std::string name;
  int64_t count = 0;
  DurationNs total_ns = 0;
  double mean_blocks_per_sm = 0;  // time-weighted
  std::optional<double> est_occupancy_pct;
  int64_t blocks = -1;  // grid x·y·z of its longest launch
  int64_t threads_per_block = -1;
};

struct SmEfficiencyResult {
  bool valid = false;  // some kernel in the window carries blocks per SM
  Interval window;     // the utilization window (first step start to last step end)
  std::vector<DeviceSmEfficiency> per_device;  // devices whose kernels carry blocks per SM
  // Rank: the mean over per_device of est_sm_efficiency_pct; occupancy time-weighted over all.
  std::optional<double> est_sm_efficiency_pct;
  std::optional<double> est_occupancy_pct;
  GridFillTotals totals;                         // summed over devices
  double small_grid_time_pct = 0;                // small_grid_ns / compute_with_blocks_ns
  double small_grid_mean_fill = 0;               // time-weighted blocks per SM of the small grids
  double blocks_coverage_pct = 0;                // with_blocks_ns / kernel_ns
  std::vector<SmallGridKernel> top_small_grids;  // by time, options.top_n
  std::vector<std::string> not_applicable;
};

SmEfficiencyResult ComputeSmEfficiency(const AnalysisInput& input, const UtilizationResult& util,
                                       MetricSet& metrics);

// What ComputeSmEfficiency emits (docs/metrics/efficiency.md).
namespace metric {
inline constexpr MetricDecl kKernelsEstSmEfficiencyPct{
    "kernels.est_sm_efficiency_pct", unit::kPercent, kRank | kDevice,
    "sum of min(blocks per SM of the kernels running, 1) x time / window (TensorBoard plugin "
    "'Est. SM Efficiency'; rank: mean over devices)"};
inline constexpr MetricDecl kKernelsEstOccupancyPct{
    "kernels.est_occupancy_pct", unit::kPercent, kRank | kDevice,
    "time-weighted mean of 'est. achieved occupancy %' over kernels in the window (TensorBoard "
    "plugin 'Est. Achieved Occupancy')"};
inline constexpr MetricDecl kKernelsSmallGridTimePct{
    "kernels.small_grid_time_pct", unit::kPercent, kRank | kDevice,
    "time of kernels with fewer blocks than SMs (blocks per SM < 1) / time of kernels with "
    "blocks per SM, communication kernels left out, in the window"};
inline constexpr MetricDecl kKernelsBlocksCoveragePct{
    "kernels.blocks_per_sm_coverage_pct", unit::kPercent, kRank,
    "time of kernels that carry blocks per SM / all kernel time, in the window"};
inline constexpr const MetricDecl* kSmEfficiencyMetrics[] = {
    &kKernelsEstSmEfficiencyPct, &kKernelsEstOccupancyPct, &kKernelsSmallGridTimePct,
    &kKernelsBlocksCoveragePct};
}  // namespace metric

}  // namespace gpuwhy
