#include "analyze/kernel_stats.h"
#include "base/percent.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <map>

namespace gpuwhy {
namespace {

std::vector<HistogramBucket> EmptyHistogram() {
  std::vector<HistogramBucket> buckets;
  DurationNs lower = 0;
  for (DurationNs decade = kNsPerUs; decade <= kNsPerSec; decade *= 10) {
    for (DurationNs m : {1, 2, 5}) {
      DurationNs upper = decade * m;
      if (upper > kNsPerSec) break;
      buckets.push_back({lower, upper, 0, 0});
      lower = upper;
    }
  }
  buckets.push_back({lower, std::numeric_limits<DurationNs>::max(), 0, 0});
  return buckets;
}

void AddToHistogram(std::vector<HistogramBucket>& buckets, DurationNs d) {
  auto it = std::upper_bound(buckets.begin(), buckets.end(), d,
                             [](DurationNs v, const HistogramBucket& b) { return v < b.upper_ns; });
  if (it == buckets.end()) --it;
  ++it->count;
  it->total_ns += d;
}

// Kernels per step, attributed by the host start of their launching call (the step that
// issued them); kernels without a launch fall back to their own start.
std::vector<StepKernelCount> CountPerStep(const Trace& trace, std::span<const ViewOp> kernels) {
  std::vector<StepKernelCount> per_step;
  if (trace.steps.synthesized) return per_step;
  const auto& rows = trace.steps.rows;
  for (const StepTable::Row& r : rows) per_step.push_back({r.number, 0, 0});
  for (const ViewOp& op : kernels) {
    TimeNs t = op.launch_start != kNoLaunch ? op.launch_start : op.start;
    auto it = std::upper_bound(rows.begin(), rows.end(), t,
                               [](TimeNs v, const StepTable::Row& r) { return v < r.host_start; });
    if (it == rows.begin()) continue;
    --it;
    if (t >= std::max(it->host_end, it->device_end)) continue;
    StepKernelCount& c = per_step[static_cast<size_t>(it - rows.begin())];
    ++c.kernels;
    c.kernel_time_ns += op.end - op.start;
  }
  return per_step;
}

void TensorCores(const AnalysisInput& input, const std::vector<KernelNameStats>& names,
                 KernelStatsResult& r) {
  const Trace& trace = input.trace;
  if (trace.metadata.vendor == GpuVendor::kAmd || trace.metadata.vendor == GpuVendor::kMtia) {
    r.not_applicable.push_back(
        "tensor cores: name patterns are NVIDIA-specific; not assessed on this vendor");
    return;
  }
  bool any_known = false, any_tc_capable = false;
  for (const DeviceTable::Row& d : trace.devices.rows) {
    if (d.compute_major < 0) continue;
    any_known = true;
    any_tc_capable |= d.compute_major >= 7;
  }
  if (any_known && !any_tc_capable) {
    r.not_applicable.push_back("tensor cores: the GPU predates Volta (compute capability < 7.0)");
    return;
  }
  r.tensor_core_applicable = true;
  for (const KernelNameStats& s : names) {
    if (s.tensor_cores) r.tensor_core_ns += s.total_ns;
    if (!IsTensorCoreEligible(s.kernel_class)) continue;
    r.tc_eligible_ns += s.total_ns;
    if (s.tensor_cores) continue;
    r.tc_eligible_without_tc_ns += s.total_ns;
    if (r.top_eligible_without_tc.size() < input.options.top_n)
      r.top_eligible_without_tc.push_back(s.display_name);
  }
}

void EmitMetrics(const KernelStatsResult& r, MetricSet& metrics) {
  auto total = static_cast<double>(r.kernel_time_ns);
  metrics.Add(metric::kKernelsCount, MetricScope::Rank(), static_cast<double>(r.kernel_count));
  metrics.Add(metric::kKernelsTotalMs, MetricScope::Rank(), NsToMs(r.kernel_time_ns));
  metrics.Add(metric::kKernelsUniqueNames, MetricScope::Rank(),
              static_cast<double>(r.all_names.size()));
  metrics.Add(metric::kKernelsShortCountPct, MetricScope::Rank(),
              PercentOf(static_cast<double>(r.short_count), static_cast<double>(r.kernel_count)));
  metrics.Add(metric::kKernelsShortTimePct, MetricScope::Rank(),
              PercentOf(static_cast<double>(r.short_time_ns), total));
  for (const KernelClassShare& c : r.classes) {
    metrics.Add(metric::kKernelsClassPct, KernelClassName(c.kernel_class), MetricScope::Rank(),
                c.time_pct);
  }
  double overlap_pct = 0;
  for (const HtaTypeShare& h : r.hta_types) {
    if (h.kernel_type.find(' ') != std::string::npos) {
      overlap_pct += h.pct;
      continue;
    }
    std::string id = h.kernel_type;
    std::transform(id.begin(), id.end(), id.begin(),
                   [](char ch) { return static_cast<char>(std::tolower(ch)); });
    metrics.Add(metric::kKernelsHtaTypePct, id, MetricScope::Rank(), h.pct);
  }
  if (!r.hta_types.empty())
    metrics.Add(metric::kKernelsHtaOverlapPct, MetricScope::Rank(), overlap_pct);
  metrics.Add(metric::kKernelsUnclassifiedPct, MetricScope::Rank(),
              PercentOf(static_cast<double>(r.unclassified_ns), total));
  if (r.tensor_core_applicable) {
    metrics.Add(metric::kKernelsTensorCoreTimePct, MetricScope::Rank(),
                PercentOf(static_cast<double>(r.tensor_core_ns), total));
    metrics.Add(metric::kKernelsTcEligibleTimePct, MetricScope::Rank(),
                PercentOf(static_cast<double>(r.tc_eligible_ns), total));
    metrics.Add(metric::kKernelsTcEligibleWithoutTcPct, MetricScope::Rank(),
                PercentOf(static_cast<double>(r.tc_eligible_without_tc_ns),
                    static_cast<double>(r.tc_eligible_ns)));
  }
  if (r.per_step.empty()) return;
  double sum = 0;
  for (const StepKernelCount& s : r.per_step) {
    metrics.Add(metric::kKernelsCount, MetricScope::Step(s.step), static_cast<double>(s.kernels));
    sum += static_cast<double>(s.kernels);
  }
  metrics.Add(metric::kKernelsPerStep, MetricScope::Rank(),
              sum / static_cast<double>(r.per_step.size()));
}

}  // namespace

KernelStatsResult ComputeKernelStats(const AnalysisInput& input, MetricSet& metrics) {
  KernelStatsResult r;
  HtaView scratch;
  const HtaView& view = SharedHtaView(input, ViewOptionsFor(input.options), scratch);
  r.hta_types = ComputeHtaTypeBreakdown(view.ops);
  auto is_kernel = [&input](const ViewOp& op) {
    return !op.is_sync && input.trace.gpu_ops.kind[op.row] == GpuOpKind::kKernel;
  };
  std::vector<ViewOp> kernels;
  if (&view == &scratch) {
    // Built for this analysis alone: filtered in place, not copied (41 MB at 1 GB).
    std::erase_if(scratch.ops, [&](const ViewOp& op) { return !is_kernel(op); });
    kernels = std::move(scratch.ops);
  } else {
    kernels.reserve(view.ops.size());  // nearly every op is a kernel
    std::copy_if(view.ops.begin(), view.ops.end(), std::back_inserter(kernels), is_kernel);
  }
  if (kernels.empty()) {
    r.not_applicable.push_back("kernel statistics: the trace has no GPU kernels");
    return r;
  }
  r.histogram = EmptyHistogram();
  std::map<KernelClass, KernelClassShare> classes;
  for (const ViewOp& op : kernels) {
    DurationNs d = op.end - op.start;
    ++r.kernel_count;
    r.kernel_time_ns += d;
    if (d < input.options.short_kernel_ns) {
      ++r.short_count;
      r.short_time_ns += d;
    }
    AddToHistogram(r.histogram, d);
    KernelClassShare& c = classes[input.timelines.kernel_class[op.row]];
    c.kernel_class = input.timelines.kernel_class[op.row];
    ++c.count;
    c.total_ns += d;
  }
  for (auto& [cls, c] : classes) {
    c.time_pct = PercentOf(static_cast<double>(c.total_ns), static_cast<double>(r.kernel_time_ns));
    r.classes.push_back(c);
  }
  std::stable_sort(
      r.classes.begin(), r.classes.end(),
      [](const KernelClassShare& a, const KernelClassShare& b) { return a.total_ns > b.total_ns; });
  r.all_names = ComputeNameStats(input.trace, input.timelines, kernels);
  r.top.assign(r.all_names.begin(),
               r.all_names.begin() +
                   static_cast<std::ptrdiff_t>(std::min(r.all_names.size(), input.options.top_n)));
  TensorCores(input, r.all_names, r);
  for (const KernelNameStats& s : r.all_names) {
    if (s.recognised) continue;
    r.unclassified_ns += s.total_ns;
    if (r.top_unclassified.size() < input.options.top_n)
      r.top_unclassified.push_back(s.display_name);
  }
  r.per_step = CountPerStep(input.trace, kernels);
  if (view.cutoff && !r.per_step.empty())
    r.per_step.pop_back();  // the dropped step launched nothing kept
  EmitMetrics(r, metrics);
  return r;
}

}  // namespace gpuwhy
