#include "analyze/temporal_breakdown.h"

#include <algorithm>

namespace gpuwhy {
namespace {

double Pct(DurationNs part, DurationNs whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void EmitMetrics(const TemporalBreakdown& b, MetricScope scope, MetricSet& metrics) {
  metrics.Add(metric::kTemporalSpanUs, scope, NsToUs(b.span_ns));
  metrics.Add(metric::kTemporalIdleUs, scope, NsToUs(b.idle_ns));
  metrics.Add(metric::kTemporalComputeUs, scope, NsToUs(b.compute_ns));
  metrics.Add(metric::kTemporalNonComputeUs, scope, NsToUs(b.non_compute_ns));
  metrics.Add(metric::kTemporalIdlePct, scope, b.idle_pct);
  metrics.Add(metric::kTemporalComputePct, scope, b.compute_pct);
  metrics.Add(metric::kTemporalNonComputePct, scope, b.non_compute_pct);
}

// |busy_out|, when given, receives the union of the ops counted: the caller's idle evidence
// is its complement, so the ops are not gathered and sorted a second time.
TemporalBreakdown ComputeTimes(std::span<const ViewOp> ops, int32_t device, IntervalSet* busy_out) {
  std::vector<Interval> all;
  std::vector<Interval> compute;
  for (const ViewOp& op : ops) {
    if (device >= 0 && op.device != device) continue;
    all.push_back({op.start, op.end});
    // HTA types cuda_sync rows by name only for the span; they never count as compute.
    if (op.type == HtaKernelType::kComputation && !op.is_sync)
      compute.push_back({op.start, op.end});
  }
  TemporalBreakdown b;
  b.device = device;
  IntervalSet busy = IntervalSet::FromUnsorted(std::move(all));
  if (busy.empty()) {
    if (busy_out != nullptr) *busy_out = std::move(busy);
    return b;
  }
  b.span = {busy.intervals().front().start, busy.intervals().back().end};
  b.span_ns = b.span.length();
  b.idle_ns = b.span_ns - busy.TotalLength();
  b.compute_ns = IntervalSet::FromUnsorted(std::move(compute)).TotalLength();
  b.non_compute_ns = b.span_ns - b.idle_ns - b.compute_ns;
  b.idle_pct = Pct(b.idle_ns, b.span_ns);
  b.compute_pct = Pct(b.compute_ns, b.span_ns);
  b.non_compute_pct = Pct(b.non_compute_ns, b.span_ns);
  if (busy_out != nullptr) *busy_out = std::move(busy);
  return b;
}

}  // namespace

TemporalBreakdown ComputeTemporalTimes(std::span<const ViewOp> ops, int32_t device) {
  return ComputeTimes(ops, device, nullptr);
}

TemporalBreakdownResult ComputeTemporalBreakdown(const AnalysisInput& input, MetricSet& metrics) {
  TemporalBreakdownResult result;
  HtaView scratch;
  const HtaView& view =
      SharedHtaView(input, ViewOptionsFor(input.options, SyncPolicy::kIncludeAsBusy), scratch);
  result.cutoff = view.cutoff;
  result.rounded = view.rounded;
  if (view.ops.empty()) {
    result.not_applicable.push_back(
        "temporal breakdown: the trace has no GPU kernels, memcpy or memset");
    return result;
  }
  result.valid = true;
  IntervalSet busy;
  result.rank = ComputeTimes(view.ops, -1, &busy);
  EmitMetrics(result.rank, MetricScope::Rank(), metrics);

  std::vector<int32_t> devices;
  for (const ViewOp& op : view.ops) devices.push_back(op.device);
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  if (devices.size() > 1) {
    for (int32_t d : devices) {
      result.per_device.push_back(ComputeTemporalTimes(view.ops, d));
      EmitMetrics(result.per_device.back(), MetricScope::Device(d), metrics);
    }
  }

  // Evidence: the longest rank-wide idle intervals inside the span.
  IntervalSet gaps = busy.Complement(result.rank.span);
  std::vector<Interval> longest = gaps.intervals();
  size_t keep = std::min(longest.size(), input.options.top_n);
  std::partial_sort(longest.begin(), longest.begin() + static_cast<std::ptrdiff_t>(keep),
                    longest.end(), [](const Interval& a, const Interval& b) {
                      return a.length() != b.length() ? a.length() > b.length() : a.start < b.start;
                    });
  for (size_t i = 0; i < keep; ++i) {
    result.longest_idle.push_back(
        {"idle_gap", -1, -1, longest[i].start, longest[i].end, "no GPU op running"});
  }
  return result;
}

}  // namespace gpuwhy
