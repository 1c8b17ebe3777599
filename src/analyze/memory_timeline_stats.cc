#include "analyze/memory_timeline_stats.h"

#include <algorithm>

namespace gpuwhy {
namespace {

// Saturating: a hostile file's rows may sum past int64.
void Add(int64_t& sum, int64_t v) {
  if (__builtin_add_overflow(sum, v, &sum)) sum = v > 0 ? INT64_MAX : INT64_MIN;
}

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

// A second replay, now that the span is known: each window's lowest level.
std::vector<int64_t> WindowTroughs(const MemoryTimeline& t, TimeNs first, TimeNs last) {
  if (first == kNoValue || last <= first) return {};
  std::vector<int64_t> trough(kTimelineWindows, INT64_MAX);
  const double width = static_cast<double>(last - first) / kTimelineWindows;
  int64_t level = 0;
  int64_t open = 0;  // windows before this one have their trough
  for (size_t i = 0; i < t.size();) {
    const TimeNs time = t.time[i];
    int64_t w = open;
    if (time != kNoValue && time >= first) {
      w = std::min<int64_t>(kTimelineWindows - 1,
                            static_cast<int64_t>(static_cast<double>(time - first) / width));
    }
    // Windows this change jumps into open at the level before it.
    for (; open <= w; ++open) trough[open] = std::min(trough[open], level);
    open = w;
    for (; i < t.size() && t.time[i] == time; ++i) Add(level, t.bytes[i]);
    trough[w] = std::min(trough[w], level);
  }
  return {trough.begin() + 1, trough.end()};
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
      Add(current[static_cast<size_t>(t.category[i])], t.bytes[i]);
      Add(total, t.bytes[i]);
      if (t.action[i] == TimelineAction::kPreexisting) Add(s.preexisting_bytes, t.bytes[i]);
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
  s.window_troughs = WindowTroughs(t, s.first_time, s.last_time);
  EmitMetrics(s);
  return s;
}

MemoryTimeline SyntheticStepTimeline(int steps, int64_t base_mib, int64_t leak_mib) {
  MemoryTimeline t;
  t.path = "synthetic";
  const auto row = [&](TimeNs time, TimelineAction action, int64_t mib, MemoryCategory cat) {
    t.time.push_back(time);
    t.action.push_back(action);
    t.bytes.push_back(mib << 20);
    t.category.push_back(cat);
  };
  row(kNoValue, TimelineAction::kPreexisting, base_mib, MemoryCategory::kParameter);
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = 1000 * (i + 1);
    row(start, TimelineAction::kCreate, 1024, MemoryCategory::kActivation);
    row(start + 500, TimelineAction::kDestroy, -1024, MemoryCategory::kActivation);
    if (leak_mib > 0) row(start + 600, TimelineAction::kCreate, leak_mib, MemoryCategory::kUnknown);
  }
  return t;
}

}  // namespace gpuwhy
