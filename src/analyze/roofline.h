// A roofline class per Nsight Compute kernel: which limit the measured numbers put the kernel
// against, with the numbers and the rule that decided it (docs/metrics/efficiency.md). Reads
// the metrics by the names of either CSV page (details-page labels, raw metric ids) and of the
// older ncu versions that have no Speed Of Light section but were given the same metrics with
// --metrics (the real exports in ../shared/data/ncu).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/kernel_profile.h"

namespace gpuwhy {

enum class RooflineClass : uint8_t {
  kComputeBound,      // the SM pipes are the busiest unit, near their peak
  kMemoryBound,       // a memory unit (DRAM, L2, L1) is the busiest, near its peak
  kOccupancyLimited,  // neither near peak, and too few warps resident to hide latency
  kLatencyBound,      // neither near peak with warps resident: stalls, not bandwidth
  kUnclassified,      // the export lacks the throughput metrics
};
std::string_view RooflineClassId(RooflineClass c);    // "compute_bound", ...
std::string_view RooflineClassName(RooflineClass c);  // "compute-bound", ...

struct RooflineParams {
  // Nsight Compute's SOLBottleneck rule: "achieved compute throughput and/or memory bandwidth
  // below 60.0% of peak typically indicate latency issues".
  double high_throughput_pct = 60;
  // gpuwhy's threshold: below a quarter of the warp slots (16 of 64 per SM on sm80/sm90) an SM
  // has too few warps to switch to while others wait on memory.
  double low_occupancy_pct = 25;
};

// The numbers a class is decided on; nullopt where the export lacks them.
struct KernelRoofline {
  RooflineClass roofline_class = RooflineClass::kUnclassified;
  std::optional<double> sm_pct;      // SM (compute) throughput, % of peak
  std::optional<double> memory_pct;  // the busiest memory unit, % of peak
  std::optional<double> dram_pct;
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
  std::optional<double> tensor_pipe_pct;      // tensor pipe active, % of peak
  std::optional<double> tensor_instructions;  // sm__inst_executed_pipe_tensor.sum
  std::optional<double> duration_ns;
  std::optional<double> dram_bytes;
  std::optional<double> registers_per_thread;
  std::optional<double> waves_per_sm;
  std::string rule;  // "memory 91.4% >= 60% of peak and > SM 14.0%"
};

KernelRoofline ClassifyProfiledKernel(const ProfiledKernel& kernel,
                                      const RooflineParams& params = {});

}  // namespace gpuwhy
