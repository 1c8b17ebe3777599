// Idle-gap attribution: every interval in which a device runs no GPU op inside the analysed
// steps gets one cause from what the host was doing, so that the causes sum to the idle
// time. A gap whose host activity changes is cut into pieces, each with one cause, chosen
// by precedence (first that applies):
//   one_off (the host in warm-up or teardown work, warmup.h) > comm_wait (a GPU-side stream
//   wait) > queued_wait > input_wait > comm_wait (host in a collective) > sync_drain >
//   launch_bound > host_busy > step_boundary > unknown.
// See docs/metrics/idle_gaps.md for the exact rules.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"
#include "base/interval_set.h"

namespace gpuwhy {

enum class IdleCause {
  kInputWait,
  kCommWait,
  // The device idles while an op already issued to it has not started: it waits on
  // something other than the host (another stream's or device's event, a graph's upload),
  // or the trace lacks GPU events that ran (a sampled capture).
  kQueuedWait,
  kSyncDrain,
  kLaunchBound,
  kHostBusy,
  kStepBoundary,
  kUnknown,
  // The host was in one-off work (warm-up.h: context set-up, compilation, graph capture,
  // teardown): not a cost of every step. First in precedence.
  kOneOff,
};
inline constexpr size_t kIdleCauseCount = 9;
// "input_wait", "comm_wait", ...: the metric id infix.
std::string_view IdleCauseName(IdleCause c);

struct IdlePiece {
  Interval range;
  IdleCause cause = IdleCause::kUnknown;
  std::string host_name;  // innermost host slice overlapping the piece most, if any
};

struct IdleGap {
  int32_t device = 0;
  Interval range;
  IdleCause dominant = IdleCause::kUnknown;  // cause with the most time in the gap
  std::vector<IdlePiece> pieces;             // in time order, covering the gap
};

struct IdleTotals {
  DurationNs window_ns = 0;  // analysed step time (summed over devices for the rank)
  DurationNs idle_ns = 0;
  int64_t gap_count = 0;
  std::array<DurationNs, kIdleCauseCount> ns{};  // sums to idle_ns
  std::array<int64_t, kIdleCauseCount> pieces{};
};

struct DeviceIdleGaps {
  int32_t device = 0;
  Interval window;
  IdleTotals totals;
  // Every idle piece of each cause (the time series and `gpuwhy annotate` draw them).
  std::array<IntervalSet, kIdleCauseCount> by_cause;
};

struct HostNameTime {
  std::string name;
  DurationNs ns = 0;
};

struct IdleGapsResult {
  std::vector<DeviceIdleGaps> devices;  // by device id
  IdleTotals rank;                      // all devices together
  int64_t step_count = 0;
  std::vector<IdleGap> top_gaps;        // the longest gaps over all devices, longest first
  std::vector<EvidenceRange> evidence;  // kind "idle_gap", one per piece of each top gap
  // Innermost host slices (ops, Python frames, API calls) overlapping host_busy idle time.
  std::vector<HostNameTime> host_busy_top;
  // cudaStreamWaitEvent / hipStreamWaitEvent calls: the job orders streams by events, so
  // queued_wait time can be a wait on another stream's work (e.g. a collective's).
  int64_t stream_wait_calls = 0;
  std::vector<std::string> not_applicable;
};

IdleGapsResult ComputeIdleGaps(const AnalysisInput& input, MetricSet& metrics);

// What ComputeIdleGaps emits (docs/metrics/idle_gaps.md).
namespace metric {
inline constexpr MetricDecl kIdleTotalMs{
    "idle.total_ms", unit::kMs, kRank | kDevice,
    "idle time in the step window (rank: summed over devices)"};
inline constexpr MetricDecl kIdleTotalPct{"idle.total_pct", unit::kPercent, kRank | kDevice,
                                          "idle / window (rank: / window x devices)"};
inline constexpr MetricDecl kIdleGapCount{"idle.gap_count", unit::kCount, kRank | kDevice,
                                          "idle intervals"};
inline constexpr MetricDecl kIdleCauseMs{"idle.{cause}_ms", unit::kMs, kRank | kDevice,
                                         "idle time attributed to the cause"};
inline constexpr MetricDecl kIdleCausePct{"idle.{cause}_pct", unit::kPercent, kRank | kDevice,
                                          "cause time / window"};
inline constexpr MetricDecl kIdleCauseSharePct{"idle.{cause}_share_pct", unit::kPercent,
                                               kRank | kDevice, "cause time / idle time"};
inline constexpr MetricDecl kIdleCauseCount{"idle.{cause}_count", unit::kCount, kRank | kDevice,
                                            "idle pieces attributed to the cause"};
inline constexpr MetricDecl kIdleTotalMsPerStep{"idle.total_ms_per_step", unit::kMs, kRank,
                                                "rank idle time / analysed steps"};
inline constexpr MetricDecl kIdleCauseMsPerStep{"idle.{cause}_ms_per_step", unit::kMs, kRank,
                                                "rank cause time / analysed steps"};
inline constexpr const MetricDecl* kIdleGapsMetrics[] = {
    &kIdleTotalMs,    &kIdleTotalPct,       &kIdleGapCount,
    &kIdleCauseMs,    &kIdleCausePct,       &kIdleCauseSharePct,
    &kIdleCauseCount, &kIdleTotalMsPerStep, &kIdleCauseMsPerStep};
}  // namespace metric

}  // namespace gpuwhy
