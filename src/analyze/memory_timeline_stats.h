// What a profiler memory timeline (model/memory_timeline.h) says: the device's tensor bytes over
// time, replayed the way PyTorch's own plot replays them (_memory_profiler._coalesce_timeline:
// rows of one timestamp applied together, preexisting tensors at the first timestamp), the peak
// and when it came, and what the bytes were at the peak, by the profiler's categories
// (parameter, optimizer state, input, temporary, activation, gradient, autograd detail,
// unknown). Reads the model only; docs/metrics/memory.md lists the metrics.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analyze/metric.h"
#include "model/memory_timeline.h"

namespace gpuwhy {

inline constexpr int64_t kTimelineWindows = 8;

struct MemoryTimelineStats {
  int64_t entries = 0;
  std::array<int64_t, kTimelineActionCount> actions{};  // by TimelineAction - 1
  TimeNs first_time = kNoValue;  // the first and last timed rows (ns, the profiler's clock)
  TimeNs last_time = kNoValue;
  int64_t preexisting_bytes = 0;  // live before profiling began
  int64_t peak_bytes = 0;
  DurationNs peak_offset = 0;  // the peak's time after first_time (0: before the first change)
  std::array<int64_t, kMemoryCategoryCount> peak_by_category{};
  int64_t final_bytes = 0;  // after the last row
  // The lowest bytes of each of kTimelineWindows equal windows of the timed span but the first
  // (warm-up), when each of them shows a step's churn (analyze/window_troughs.h): a leak raises
  // them window after window. Empty for a span of less than that many steps.
  std::vector<int64_t> window_troughs;
  MetricSet metrics;
};

MemoryTimelineStats AnalyzeMemoryTimeline(const MemoryTimeline& timeline);

namespace metric {

inline constexpr MetricDecl kTimelinePeakBytes{
    "memory.timeline.peak_bytes", unit::kBytes, kRank,
    "max over timestamps of the sum of the rows' bytes (a timestamp's rows applied together)"};
inline constexpr MetricDecl kTimelinePeakMs{
    "memory.timeline.peak_time_ms", unit::kMs, kRank,
    "the peak's timestamp after the first timed row (its first occurrence)"};
inline constexpr MetricDecl kTimelineCategoryBytes{"memory.timeline.peak_{category}_bytes",
                                                   unit::kBytes, kRank,
                                                   "bytes of that profiler category at the peak"};
inline constexpr MetricDecl kTimelineCategoryPct{"memory.timeline.peak_{category}_pct",
                                                 unit::kPercent, kRank,
                                                 "that category's bytes / the peak"};
inline constexpr MetricDecl kTimelineFinalBytes{"memory.timeline.final_bytes", unit::kBytes, kRank,
                                                "the sum of every row's bytes"};
inline constexpr MetricDecl kTimelinePreexistingBytes{
    "memory.timeline.preexisting_bytes", unit::kBytes, kRank,
    "bytes of the preexisting rows (tensors alive before profiling)"};
inline constexpr MetricDecl kTimelineSpanMs{"memory.timeline.span_ms", unit::kMs, kRank,
                                            "last timed row - first timed row"};
inline constexpr MetricDecl kTimelineEntries{"memory.timeline.entries", unit::kCount, kRank,
                                             "rows read"};
inline constexpr const MetricDecl* kMemoryTimelineMetrics[] = {
    &kTimelinePeakBytes,   &kTimelinePeakMs,     &kTimelineCategoryBytes,
    &kTimelineCategoryPct, &kTimelineFinalBytes, &kTimelinePreexistingBytes,
    &kTimelineSpanMs,      &kTimelineEntries};

}  // namespace metric

}  // namespace gpuwhy
