#include "report/efficiency_lines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/gpu_metric_bins.h"
#include "report/text_format.h"

namespace gpuwhy::report {

std::string GridFillSentence(const SmEfficiencyResult& r) {
  if (!r.valid || !r.est_sm_efficiency_pct) return "";
  std::string occupancy =
      r.est_occupancy_pct ? fmt::format(", est. achieved occupancy {}", Pct(*r.est_occupancy_pct))
                          : "";
  return fmt::format(
      "grid fill (estimated from Kineto's launch arguments, TensorBoard plugin definitions): est. "
      "SM efficiency {} of the window{}; {} of compute-kernel time in grids with fewer blocks "
      "than SMs (mean {:.2f} blocks per SM); {} of kernel time carries blocks per SM",
      Pct(*r.est_sm_efficiency_pct), occupancy, Pct(r.small_grid_time_pct), r.small_grid_mean_fill,
      Pct(r.blocks_coverage_pct));
}

std::string FlopsSentence(const FlopsResult& r) {
  if (!r.valid || r.total_flops <= 0) return "";
  std::string rate = r.achieved_flops_per_s > 0
                         ? fmt::format(", {:.3g} TFLOP/s per device over the window",
                                       r.achieved_flops_per_s / 1e12)
                         : "";
  std::string mfu = r.mfu_pct ? fmt::format("; MFU {} of the {} {} dense peak ({:.0f} TFLOP/s)",
                                            Pct(*r.mfu_pct), r.device_name,
                                            PrecisionName(*r.precision), *r.peak_flops_per_s / 1e12)
                              : "";
  std::string matmul;
  if (r.matmul_kernel_flops_per_s > 0) {
    matmul =
        fmt::format("; {:.3g} TFLOP/s while the GEMM/attention kernels run ({} of kernel time)",
                    r.matmul_kernel_flops_per_s / 1e12, Pct(r.matmul_kernel_time_pct));
    if (r.matmul_mfu_pct) matmul += fmt::format(", {} of the peak", Pct(*r.matmul_mfu_pct));
  }
  return fmt::format(
      "model FLOPs (matrix-multiply ops, {} from with_flops, the rest from shapes): {:.3g} TFLOP "
      "per step{}{}{}",
      Pct(100.0 * r.recorded_flops / r.total_flops), r.per_step_flops / 1e12, rate, mfu, matmul);
}

std::string GpuMetricsSentence(const GpuMetricsResult& r) {
  if (!r.valid) return "";
  std::vector<std::string> parts;
  auto add = [&](const char* label, const std::optional<double>& v) {
    if (v) parts.push_back(fmt::format("{} {}", label, Pct(*v)));
  };
  add("SM active", r.rank.sm_active_pct);
  add("SM issue", r.rank.sm_issue_pct);
  add("SM occupancy", r.rank.sm_occupancy_pct);
  add("tensor active", r.rank.tensor_active_pct);
  add(r.source_label == kGpuMetricsSource ? "DRAM bandwidth" : "DRAM active", r.rank.dram_bw_pct);
  add("GR active", r.rank.gr_active_pct);
  return fmt::format(
      "device counters, {}: {}; means over the analysed steps, {} of them covered, {} "
      "device(s)",
      r.source, fmt::join(parts, ", "), Pct(r.rank.coverage_pct), r.per_device.size());
}

}  // namespace gpuwhy::report
