#include "analyze/temporal_breakdown.h"
#include "base/percent.h"

#include <algorithm>
#include <set>

namespace gpuwhy {
namespace {

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
// The view's ops are in start order: the sets are merged as the ops come, holding merged
// intervals only, not one interval per op collected first.
TemporalBreakdown ComputeTimes(std::span<const ViewOp> ops, int32_t device, IntervalSet* busy_out) {
  IntervalSet::SortedBuilder all;
  IntervalSet::SortedBuilder compute;
  for (const ViewOp& op : ops) {
    if (device >= 0 && op.device != device) continue;
    all.Add({op.start, op.end});
    // HTA types cuda_sync rows by name only for the span; they never count as compute.
    if (op.type == HtaKernelType::kComputation && !op.is_sync) compute.Add({op.start, op.end});
  }
  TemporalBreakdown b;
  b.device = device;
  IntervalSet busy = std::move(all).Build();
  if (busy.empty()) {
    if (busy_out != nullptr) *busy_out = std::move(busy);
    return b;
  }
  b.span = {busy.intervals().front().start, busy.intervals().back().end};
  b.span_ns = b.span.length();
  b.idle_ns = b.span_ns - busy.TotalLength();
  b.compute_ns = std::move(compute).Build().TotalLength();
  b.non_compute_ns = b.span_ns - b.idle_ns - b.compute_ns;
  b.idle_pct = PercentOf(b.idle_ns, b.span_ns);
  b.compute_pct = PercentOf(b.compute_ns, b.span_ns);
  b.non_compute_pct = PercentOf(b.non_compute_ns, b.span_ns);
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

  std::set<int32_t> devices;  // a handful: not one entry per op
  for (const ViewOp& op : view.ops) {
    if (devices.empty() || op.device != *devices.rbegin()) devices.insert(op.device);
  }
  if (devices.size() > 1) {
    for (int32_t d : devices) {
      result.per_device.push_back(ComputeTemporalTimes(view.ops, d));
      EmitMetrics(result.per_device.back(), MetricScope::Device(d), metrics);
    }
  }

  // Evidence: the longest rank-wide idle intervals inside the span, the gaps between the
  // busy set's intervals. Picked with a heap of top_n: the gaps are not materialised as a set
  // and copied for a partial sort (near one gap per op on a busy GPU).
  auto ranks_before = [](const Interval& a, const Interval& b) {
    return a.length() != b.length() ? a.length() > b.length() : a.start < b.start;
  };
  std::vector<Interval> longest;  // a heap whose front is the last-ranked gap kept
  const std::vector<Interval>& runs = busy.intervals();
  for (size_t i = 1; i < runs.size() && input.options.top_n > 0; ++i) {
    Interval gap{runs[i - 1].end, runs[i].start};
    if (longest.size() < input.options.top_n) {
      longest.push_back(gap);
      std::push_heap(longest.begin(), longest.end(), ranks_before);
    } else if (ranks_before(gap, longest.front())) {
      std::pop_heap(longest.begin(), longest.end(), ranks_before);
      longest.back() = gap;
      std::push_heap(longest.begin(), longest.end(), ranks_before);
    }
  }
  std::sort_heap(longest.begin(), longest.end(), ranks_before);
  for (const Interval& gap : longest) {
    result.longest_idle.push_back({"idle_gap", -1, -1, gap.start, gap.end, "no GPU op running"});
  }
  return result;
}

}  // namespace gpuwhy
