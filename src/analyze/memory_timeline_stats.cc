#include "analyze/memory_timeline_stats.h"

#include "analyze/window_troughs.h"

namespace gpuwhy {
namespace {

void EmitMetrics(MemoryTimelineStats& s) {
  const MetricScope rank = MetricScope::Rank();
  s.metrics.Add(metric::kTimelineEntries, rank, static_cast<double>(s.entries));
  s.metrics.Add(metric::kTimelinePreexistingBytes, rank, static_cast<double>(s.preexisting_bytes));
  s.metrics.Add(metric::kTimelineFinalBytes, rank, static_cast<double>(s.final_bytes));
  if (s.first_time != kNoValue) {
    s.metrics.Add(metric::kTimelineSpanMs, rank, NsToMs(s.last_time - s.first_time));
  }
  s.metrics.Add(metric::kTimelinePeakBytes, rank, static_cast<double>(s.peak_bytes));
  s.metrics.Add(metric::kTimelinePeakMs, rank, NsToMs(s.peak_offset));
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    const std::string_view name = MemoryCategoryName(static_cast<MemoryCategory>(c));
    const double bytes = static_cast<double>(s.peak_by_category[c]);
    s.metrics.Add(metric::kTimelineCategoryBytes, name, rank, bytes);
    if (s.peak_bytes > 0) {
      s.metrics.Add(metric::kTimelineCategoryPct, name, rank, 100.0 * bytes / s.peak_bytes);
    }
  }
}

}  // namespace

MemoryTimelineStats AnalyzeMemoryTimeline(const MemoryTimeline& t) {
  MemoryTimelineStats s;
  s.entries = static_cast<int64_t>(t.size());
  std::array<int64_t, kMemoryCategoryCount> current{};
  int64_t total = 0;
  TimeNs peak_time = kNoValue;
  for (size_t i = 0; i < t.size();) {
    // One timestamp's rows together: a version bump's -bytes and +bytes are one change.
    const TimeNs time = t.time[i];
    for (; i < t.size() && t.time[i] == time; ++i) {
      ++s.actions[static_cast<size_t>(t.action[i]) - 1];
      SaturatingAdd(current[static_cast<size_t>(t.category[i])], t.bytes[i]);
      SaturatingAdd(total, t.bytes[i]);
      if (t.action[i] == TimelineAction::kPreexisting)
        SaturatingAdd(s.preexisting_bytes, t.bytes[i]);
    }
    if (time != kNoValue) {
      if (s.first_time == kNoValue || time < s.first_time) s.first_time = time;
      if (s.last_time == kNoValue || time > s.last_time) s.last_time = time;
    }
    if (total > s.peak_bytes) {
      s.peak_bytes = total;
      peak_time = time;
      s.peak_by_category = current;
    }
  }
  s.final_bytes = total;
  // Preexisting rows have no time: PyTorch's plot puts them at the first timestamp.
  s.peak_offset = peak_time == kNoValue || s.first_time == kNoValue ? 0 : peak_time - s.first_time;
  // A second replay, now that the span is known.
  s.window_troughs = CyclingTroughs(
      WindowLevelsOf(t.time, t.bytes, 0, s.first_time, s.last_time, kTimelineWindows));
  EmitMetrics(s);
  return s;
}

}  // namespace gpuwhy
