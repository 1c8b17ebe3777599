#include "analyze/roofline.h"

#include <fmt/format.h>

namespace gpuwhy {
namespace {

// The first metric among |names| that is a percentage: the details page has a "Memory
// Throughput" in % (Speed Of Light) and another in byte/second (Memory Workload Analysis).
std::optional<double> Percent(const ProfiledKernel& kernel,
                              std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    for (const KernelMetric& metric : kernel.metrics) {
      if (metric.name == name && metric.unit == "%" && metric.value) return metric.value;
    }
  }
  return std::nullopt;
}

std::optional<double> DramBytes(const ProfiledKernel& kernel) {
  if (std::optional<double> sum = kernel.Value({"dram__bytes.sum"})) return sum;
  std::optional<double> read = kernel.Value({"dram__bytes_read.sum"});
  std::optional<double> write = kernel.Value({"dram__bytes_write.sum"});
  if (read && write) return *read + *write;
  return std::nullopt;
}

void ReadNumbers(const ProfiledKernel& k, KernelRoofline& r) {
  r.sm_pct = Percent(
      k, {"Compute (SM) Throughput", "SM [%]", "sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  r.memory_pct = Percent(k, {"Memory Throughput", "Memory [%]",
                             "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  r.dram_pct =
      Percent(k, {"DRAM Throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  r.achieved_occupancy_pct =
      Percent(k, {"Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"});
  r.theoretical_occupancy_pct =
      Percent(k, {"Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"});
  r.tensor_pipe_pct =
      Percent(k, {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                  "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active"});
  r.tensor_instructions = k.Value({"sm__inst_executed_pipe_tensor.sum"});
  r.duration_ns = k.Value({"Duration", "gpu__time_duration.sum"});
  r.dram_bytes = DramBytes(k);
  r.registers_per_thread = k.Value({"Registers Per Thread", "launch__registers_per_thread"});
  r.waves_per_sm = k.Value({"Waves Per SM", "launch__waves_per_multiprocessor"});
}

}  // namespace

std::string_view RooflineClassId(RooflineClass c) {
  switch (c) {
    case RooflineClass::kComputeBound: return "compute_bound";
    case RooflineClass::kMemoryBound: return "memory_bound";
    case RooflineClass::kOccupancyLimited: return "occupancy_limited";
    case RooflineClass::kLatencyBound: return "latency_bound";
    case RooflineClass::kUnclassified: break;
  }
  return "unclassified";
}

std::string_view RooflineClassName(RooflineClass c) {
  switch (c) {
    case RooflineClass::kComputeBound: return "compute-bound";
    case RooflineClass::kMemoryBound: return "memory-bound";
    case RooflineClass::kOccupancyLimited: return "occupancy-limited";
    case RooflineClass::kLatencyBound: return "latency-bound";
    case RooflineClass::kUnclassified: break;
  }
  return "unclassified";
}

KernelRoofline ClassifyProfiledKernel(const ProfiledKernel& kernel, const RooflineParams& params) {
  KernelRoofline r;
  ReadNumbers(kernel, r);
  if (!r.sm_pct || !r.memory_pct) {
    r.rule =
        "needs SM and memory throughput (ncu --section SpeedOfLight, or --metrics "
        "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed)";
    return r;
  }
  const double sm = *r.sm_pct;
  const double memory = *r.memory_pct;
  const double high = params.high_throughput_pct;
  if (sm >= high && sm >= memory) {
    r.roofline_class = RooflineClass::kComputeBound;
    r.rule = fmt::format("SM {:.1f}% >= {:.0f}% of peak and >= memory {:.1f}%", sm, high, memory);
    return r;
  }
  if (memory >= high) {
    r.roofline_class = RooflineClass::kMemoryBound;
    r.rule = fmt::format("memory {:.1f}% >= {:.0f}% of peak and > SM {:.1f}%", memory, high, sm);
    return r;
  }
  const std::string both =
      fmt::format("SM {:.1f}% and memory {:.1f}% < {:.0f}% of peak", sm, memory, high);
  if (r.achieved_occupancy_pct && *r.achieved_occupancy_pct < params.low_occupancy_pct) {
    r.roofline_class = RooflineClass::kOccupancyLimited;
    r.rule = fmt::format("{}; achieved occupancy {:.1f}% < {:.0f}%", both,
                         *r.achieved_occupancy_pct, params.low_occupancy_pct);
    return r;
  }
  r.roofline_class = RooflineClass::kLatencyBound;
  r.rule = r.achieved_occupancy_pct
               ? fmt::format("{}; achieved occupancy {:.1f}% >= {:.0f}%", both,
                             *r.achieved_occupancy_pct, params.low_occupancy_pct)
               : both + "; occupancy not measured";
  return r;
}

}  // namespace gpuwhy
