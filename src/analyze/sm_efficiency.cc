#include "analyze/sm_efficiency.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analyze/kernel_class.h"
#include "base/percent.h"

namespace gpuwhy {
namespace {

// A kernel's start or end with its blocks per SM. At one instant starts sort first, as in the
// plugin, so back-to-back kernels make one busy period.
struct Endpoint {
  TimeNs at = 0;
  bool is_end = false;
  double blocks_per_sm = 0;
};

// The plugin's merge_ranges_with_value: between consecutive endpoints the running kernels'
// blocks per SM add up, capped at 1 (a device cannot be more than full). Returns Σ fill × dt.
double FilledSmTime(std::vector<Endpoint>& endpoints) {
  std::sort(endpoints.begin(), endpoints.end(), [](const Endpoint& a, const Endpoint& b) {
    return a.at != b.at ? a.at < b.at : (!a.is_end && b.is_end);
  });
  double filled_ns = 0;
  double running = 0;
  int64_t active = 0;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (i > 0 && active > 0 && endpoints[i].at > endpoints[i - 1].at) {
      filled_ns +=
          std::min(running, 1.0) * static_cast<double>(endpoints[i].at - endpoints[i - 1].at);
    }
    active += endpoints[i].is_end ? -1 : 1;
    running += endpoints[i].is_end ? -endpoints[i].blocks_per_sm : endpoints[i].blocks_per_sm;
    if (active == 0) running = 0;  // no float residue carried into the next busy period
  }
  return filled_ns;
}

struct NameAccumulator {
  int64_t count = 0;
  DurationNs total_ns = 0;
  double fill_ns = 0;
  double occupancy_pct_ns = 0;
  DurationNs occupancy_ns = 0;
  DurationNs longest_ns = -1;
  int64_t blocks = -1;
  int64_t threads_per_block = -1;
};

int64_t PositiveProduct(const std::array<int32_t, 3>& v) {
  if (v[0] <= 0 || v[1] <= 0 || v[2] <= 0) return -1;
  return static_cast<int64_t>(v[0]) * v[1] * v[2];
}

void Add(GridFillTotals& into, const GridFillTotals& from) {
  into.kernel_ns += from.kernel_ns;
  into.with_blocks_ns += from.with_blocks_ns;
  into.compute_with_blocks_ns += from.compute_with_blocks_ns;
  into.small_grid_ns += from.small_grid_ns;
  into.small_grid_fill_ns += from.small_grid_fill_ns;
  into.occupancy_pct_ns += from.occupancy_pct_ns;
  into.with_occupancy_ns += from.with_occupancy_ns;
}

std::vector<SmallGridKernel> TopSmallGrids(
    const Trace& trace, const std::unordered_map<StringId, NameAccumulator>& names, size_t top_n) {
  std::vector<SmallGridKernel> out;
  for (const auto& [name, acc] : names) {
    SmallGridKernel k;
    k.name = std::string(trace.Str(name));
    k.count = acc.count;
    k.total_ns = acc.total_ns;
    k.mean_blocks_per_sm = acc.total_ns > 0 ? acc.fill_ns / static_cast<double>(acc.total_ns) : 0;
    if (acc.occupancy_ns > 0)
      k.est_occupancy_pct = acc.occupancy_pct_ns / static_cast<double>(acc.occupancy_ns);
    k.blocks = acc.blocks;
    k.threads_per_block = acc.threads_per_block;
    out.push_back(std::move(k));
  }
  std::sort(out.begin(), out.end(), [](const SmallGridKernel& a, const SmallGridKernel& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (out.size() > top_n) out.resize(top_n);
  return out;
}

}  // namespace

SmEfficiencyResult ComputeSmEfficiency(const AnalysisInput& input, const UtilizationResult& util,
                                       MetricSet& metrics) {
  SmEfficiencyResult result;
  if (!util.valid) return result;  // the utilization analysis says why
  result.window = util.window;
  const Interval w = util.window;
  const GpuOpTable& ops = input.trace.gpu_ops;
  std::map<int32_t, std::vector<Endpoint>> endpoints;
  std::map<int32_t, GridFillTotals> totals;
  std::unordered_map<StringId, NameAccumulator> small_names;
  std::unordered_map<StringId, bool> is_communication;  // by name, classified once
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel) continue;
    TimeNs start = std::max(ops.start[i], w.start);
    TimeNs end = std::min(ops.end[i], w.end);
    if (end <= start) continue;
    const DurationNs ns = end - start;
    const LaunchConfig& launch = ops.launch(i);
    GridFillTotals& t = totals[ops.device[i]];
    t.kernel_ns += ns;
    // The plugin keeps occupancy >= 0 and blocks per SM > 0; others are absent or invalid.
    const bool has_occupancy = !std::isnan(launch.occupancy_pct) && launch.occupancy_pct >= 0;
    if (has_occupancy) {
      t.occupancy_pct_ns += launch.occupancy_pct * static_cast<double>(ns);
      t.with_occupancy_ns += ns;
    }
    if (std::isnan(launch.blocks_per_sm) || launch.blocks_per_sm <= 0) continue;
    const double bps = launch.blocks_per_sm;
    endpoints[ops.device[i]].push_back({start, false, bps});
    endpoints[ops.device[i]].push_back({end, true, bps});
    t.with_blocks_ns += ns;
    auto [comm, inserted] = is_communication.try_emplace(ops.name[i], false);
    if (inserted) {
      comm->second = ClassifyKernel(GpuOpKind::kKernel, input.trace.Str(ops.name[i])) ==
                     KernelClass::kCommunication;
    }
    if (comm->second) continue;
    t.compute_with_blocks_ns += ns;
    if (bps >= 1) continue;
    t.small_grid_ns += ns;
    t.small_grid_fill_ns += bps * static_cast<double>(ns);
    NameAccumulator& acc = small_names[ops.name[i]];
    ++acc.count;
    acc.total_ns += ns;
    acc.fill_ns += bps * static_cast<double>(ns);
    if (has_occupancy) {
      acc.occupancy_pct_ns += launch.occupancy_pct * static_cast<double>(ns);
      acc.occupancy_ns += ns;
    }
    if (ns > acc.longest_ns) {
      acc.longest_ns = ns;
      acc.blocks = PositiveProduct(launch.grid);
      acc.threads_per_block = PositiveProduct(launch.block);
    }
  }
  double efficiency_sum = 0;
  for (auto& [device, t] : totals) {
    DeviceSmEfficiency d;
    d.device = device;
    d.totals = t;
    Add(result.totals, t);
    if (t.with_occupancy_ns > 0)
      d.est_occupancy_pct = t.occupancy_pct_ns / static_cast<double>(t.with_occupancy_ns);
    auto it = endpoints.find(device);
    if (it == endpoints.end()) continue;  // no blocks per SM on this device
    d.est_sm_efficiency_pct = PercentOf(FilledSmTime(it->second), static_cast<double>(w.length()));
    efficiency_sum += *d.est_sm_efficiency_pct;
    metrics.Add(metric::kKernelsEstSmEfficiencyPct, MetricScope::Device(device),
                *d.est_sm_efficiency_pct);
    if (d.est_occupancy_pct)
      metrics.Add(metric::kKernelsEstOccupancyPct, MetricScope::Device(device),
                  *d.est_occupancy_pct);
    metrics.Add(metric::kKernelsSmallGridTimePct, MetricScope::Device(device),
                PercentOf(static_cast<double>(t.small_grid_ns),
                          static_cast<double>(t.compute_with_blocks_ns)));
    result.per_device.push_back(d);
  }
  const GridFillTotals& t = result.totals;
  if (t.with_occupancy_ns > 0)
    result.est_occupancy_pct = t.occupancy_pct_ns / static_cast<double>(t.with_occupancy_ns);
  if (result.per_device.empty()) {
    result.not_applicable.push_back(
        "SM efficiency: no kernel carries Kineto's \"blocks per SM\" (CUDA traces of PyTorch "
        "1.9 and later record it; ROCm and older traces do not)");
    return result;
  }
  result.valid = true;
  result.est_sm_efficiency_pct = efficiency_sum / static_cast<double>(result.per_device.size());
  result.small_grid_time_pct = PercentOf(static_cast<double>(t.small_grid_ns),
                                         static_cast<double>(t.compute_with_blocks_ns));
  result.small_grid_mean_fill =
      t.small_grid_ns > 0 ? t.small_grid_fill_ns / static_cast<double>(t.small_grid_ns) : 0;
  result.blocks_coverage_pct =
      PercentOf(static_cast<double>(t.with_blocks_ns), static_cast<double>(t.kernel_ns));
  result.top_small_grids = TopSmallGrids(input.trace, small_names, input.options.top_n);
  metrics.Add(metric::kKernelsEstSmEfficiencyPct, MetricScope::Rank(),
              *result.est_sm_efficiency_pct);
  if (result.est_occupancy_pct)
    metrics.Add(metric::kKernelsEstOccupancyPct, MetricScope::Rank(), *result.est_occupancy_pct);
  metrics.Add(metric::kKernelsSmallGridTimePct, MetricScope::Rank(), result.small_grid_time_pct);
  metrics.Add(metric::kKernelsBlocksCoveragePct, MetricScope::Rank(), result.blocks_coverage_pct);
  return result;
}

}  // namespace gpuwhy
