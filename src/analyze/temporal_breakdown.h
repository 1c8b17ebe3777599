// HTA-compatible temporal breakdown (HolisticTraceAnalysis get_temporal_breakdown): over
// the span from the first GPU op start to the last GPU op end, how much time the GPU was
// idle (nothing running on any stream), running computation kernels, or only running
// communication / memory ops. cuda_sync waits are never busy here (HTA counts them).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/hta_view.h"
#include "analyze/metric.h"

namespace gpuwhy {

struct TemporalBreakdown {
  int32_t device = -1;            // -1: the whole rank (all devices' ops together, as HTA does)
  Interval span;                  // first GPU op start to last GPU op end
  DurationNs span_ns = 0;         // HTA kernel_time
  DurationNs idle_ns = 0;         // span − |∪ GPU ops|; HTA idle_time
  DurationNs compute_ns = 0;      // |∪ computation kernels|; HTA compute_time
  DurationNs non_compute_ns = 0;  // the rest: communication / memory only; HTA non_compute_time
  double idle_pct = 0;
  double compute_pct = 0;
  double non_compute_pct = 0;
};

struct TemporalBreakdownResult {
  bool valid = false;  // false when the rank ran no GPU op
  TemporalBreakdown rank;
  std::vector<TemporalBreakdown> per_device;  // filled when the rank drove several devices
  std::vector<EvidenceRange> longest_idle;    // rank-wide idle intervals, longest first
  std::optional<TimeNs> cutoff;               // last-step start when options.drop_last_step
  bool rounded = false;  // HTA's µs rounding applied (hta_compat on a fractional-µs trace)
  std::vector<std::string> not_applicable;
};

// The breakdown of |ops| (sorted as in HtaView), restricted to |device| unless it is -1.
// Returns a zero breakdown when no op qualifies.
TemporalBreakdown ComputeTemporalTimes(std::span<const ViewOp> ops, int32_t device = -1);

TemporalBreakdownResult ComputeTemporalBreakdown(const AnalysisInput& input, MetricSet& metrics);

// What ComputeTemporalBreakdown emits (docs/metrics/temporal.md).
namespace metric {
inline constexpr MetricDecl kTemporalSpanUs{
    "temporal.span_us", unit::kUs, kRank | kDevice,
    "first GPU op start to last GPU op end (HTA kernel_time)"};
inline constexpr MetricDecl kTemporalIdleUs{"temporal.idle_us", unit::kUs, kRank | kDevice,
                                            "span - |union of GPU ops| (HTA idle_time)"};
inline constexpr MetricDecl kTemporalComputeUs{"temporal.compute_us", unit::kUs, kRank | kDevice,
                                               "|union of computation kernels| (HTA compute_time)"};
inline constexpr MetricDecl kTemporalNonComputeUs{"temporal.non_compute_us", unit::kUs,
                                                  kRank | kDevice,
                                                  "span - idle - compute (HTA non_compute_time)"};
inline constexpr MetricDecl kTemporalIdlePct{"temporal.idle_pct", unit::kPercent, kRank | kDevice,
                                             "idle / span (HTA idle_time_pctg)"};
inline constexpr MetricDecl kTemporalComputePct{"temporal.compute_pct", unit::kPercent,
                                                kRank | kDevice,
                                                "compute / span (HTA compute_time_pctg)"};
inline constexpr MetricDecl kTemporalNonComputePct{
    "temporal.non_compute_pct", unit::kPercent, kRank | kDevice,
    "non-compute / span (HTA non_compute_time_pctg)"};
inline constexpr const MetricDecl* kTemporalMetrics[] = {
    &kTemporalSpanUs,  &kTemporalIdleUs,     &kTemporalComputeUs,    &kTemporalNonComputeUs,
    &kTemporalIdlePct, &kTemporalComputePct, &kTemporalNonComputePct};
}  // namespace metric

}  // namespace gpuwhy
