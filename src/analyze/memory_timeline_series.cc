#include "analyze/memory_timeline_series.h"

#include <algorithm>

#include "analyze/allocator_state.h"
#include "analyze/memory_series_builder.h"
#include "analyze/window_troughs.h"

namespace gpuwhy {

std::string_view MemoryMarkerKindName(MemoryMarkerKind kind) {
  switch (kind) {
    case MemoryMarkerKind::kOom: return "oom";
    case MemoryMarkerKind::kSegmentAlloc: return "segment_alloc";
    case MemoryMarkerKind::kSegmentFree: return "segment_free";
  }
  return "oom";
}

namespace {

using memory_series::SeriesBuilder;

int64_t Known(int64_t v) { return v == kNoValue ? 0 : v; }
int64_t Negated(int64_t v) { return v == INT64_MIN ? INT64_MAX : -v; }

bool IsFree(MemoryAction a) { return a == MemoryAction::kFreeCompleted; }
bool IsSegmentAlloc(MemoryAction a) {
  return a == MemoryAction::kSegmentAlloc || a == MemoryAction::kSegmentMap;
}
bool IsSegmentFree(MemoryAction a) {
  return a == MemoryAction::kSegmentFree || a == MemoryAction::kSegmentUnmap;
}

DeviceMemorySeriesResult SnapshotDevice(const MemorySnapshot& s, int32_t device,
                                        const std::vector<uint32_t>& rows, size_t buckets) {
  DeviceMemorySeriesResult out;
  out.device = device;
  out.source = "allocator snapshot trace";
  bool timed = true;
  for (size_t i = 0; i < rows.size() && timed; ++i) {
    const TimeNs t = s.trace[rows[i]].time;
    timed = t != kNoValue && (i == 0 || t >= s.trace[rows[i - 1]].time);
  }
  out.axis = timed ? MemoryAxis::kTime : MemoryAxis::kEntryIndex;
  const auto x_of = [&](size_t i) {
    return timed ? s.trace[rows[i]].time : static_cast<int64_t>(i);
  };
  out.x_start = x_of(0);
  out.x_end = x_of(rows.size() - 1);
  // The replay's end is the snapshot: its segments anchor both levels.
  int64_t allocated = 0, reserved = 0;
  for (const MemorySegment& seg : s.segments) {
    if (seg.device != device) continue;
    SaturatingAdd(allocated, Known(seg.allocated_size));
    SaturatingAdd(reserved, seg.total_size);
  }
  out.has_reserved = true;
  for (uint32_t r : rows) {
    const MemoryTraceEntry& e = s.trace[r];
    if (e.action == MemoryAction::kAlloc) SaturatingAdd(allocated, Negated(e.size));
    if (IsFree(e.action)) SaturatingAdd(allocated, e.size);
    if (IsSegmentAlloc(e.action)) SaturatingAdd(reserved, Negated(e.size));
    if (IsSegmentFree(e.action)) SaturatingAdd(reserved, e.size);
  }
  SeriesBuilder builder(out, buckets, allocated, reserved);
  int64_t peak_row = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const MemoryTraceEntry& e = s.trace[rows[i]];
    const int64_t x = x_of(i);
    if (e.action == MemoryAction::kAlloc) {
      SaturatingAdd(allocated, e.size);
      if (builder.Level(x, allocated, kNoValue)) peak_row = static_cast<int64_t>(i);
    } else if (IsFree(e.action)) {
      SaturatingAdd(allocated, Negated(e.size));
      builder.Level(x, allocated, kNoValue);
    } else if (IsSegmentAlloc(e.action) || IsSegmentFree(e.action)) {
      SaturatingAdd(reserved, IsSegmentAlloc(e.action) ? e.size : Negated(e.size));
      builder.Level(x, kNoValue, reserved);
      builder.Marker(IsSegmentAlloc(e.action) ? MemoryMarkerKind::kSegmentAlloc
                                              : MemoryMarkerKind::kSegmentFree,
                     x, e.size);
    } else if (e.action == MemoryAction::kOom) {
      builder.Marker(MemoryMarkerKind::kOom, x, e.size);
    }
  }
  builder.Finish();
  // What was live at the peak: the trace's allocations not freed by then, by their frames.
  std::unordered_map<int64_t, std::pair<int64_t, uint32_t>> live;
  for (int64_t i = 0; i <= peak_row; ++i) {
    const MemoryTraceEntry& e = s.trace[rows[static_cast<size_t>(i)]];
    if (e.address == kNoValue) continue;
    if (e.action == MemoryAction::kAlloc) live[e.address] = {e.size, e.stack};
    if (IsFree(e.action)) live.erase(e.address);
  }
  std::unordered_map<StackId, std::string> site_of_stack;
  out.peak_site_kind = "frame";
  memory_series::AddLiveSites(out, live, [&](uint32_t stack) -> std::string {
    auto it = site_of_stack.find(stack);
    if (it == site_of_stack.end())
      it = site_of_stack.emplace(stack, AllocationSiteOf(s, stack)).first;
    return it->second;
  });
  return out;
}

}  // namespace

MemorySeriesResult ComputeSnapshotMemorySeries(const MemorySnapshot& s, size_t buckets) {
  MemorySeriesResult result;
  std::vector<int32_t> devices;
  std::unordered_map<int32_t, std::vector<uint32_t>> rows;
  for (uint32_t i = 0; i < s.trace.size(); ++i) {
    std::vector<uint32_t>& r = rows[s.trace[i].device];
    if (r.empty()) devices.push_back(s.trace[i].device);
    r.push_back(i);
  }
  std::sort(devices.begin(), devices.end());
  if (devices.empty()) {
    result.not_applicable.push_back(
        "memory over time: the snapshot holds no trace of allocator actions (record it with "
        "torch.cuda.memory._record_memory_history() before the steps)");
  }
  for (int32_t device : devices) {
    if (result.devices.size() == kMemorySeriesDevices) break;
    result.devices.push_back(SnapshotDevice(s, device, rows[device],
                                            memory_series::DeviceBuckets(buckets, devices.size())));
  }
  return result;
}

}  // namespace gpuwhy

namespace gpuwhy {

// Rows of one timestamp applied together and preexisting tensors at the first timestamp, as
// AnalyzeMemoryTimeline (and PyTorch's own plot) replays them: the peak is the same.
MemorySeriesResult ComputeTimelineMemorySeries(const MemoryTimeline& t, size_t buckets) {
  MemorySeriesResult result;
  if (t.size() == 0) {
    result.not_applicable.push_back("memory over time: the memory timeline has no rows");
    return result;
  }
  DeviceMemorySeriesResult out;
  out.source = "profiler memory timeline";
  TimeNs first = kNoValue, last = kNoValue;
  for (TimeNs time : t.time) {
    if (time == kNoValue) continue;
    first = first == kNoValue ? time : std::min(first, time);
    last = last == kNoValue ? time : std::max(last, time);
  }
  out.x_start = first == kNoValue ? 0 : first;
  out.x_end = last == kNoValue ? 0 : last;
  SeriesBuilder builder(out, buckets, 0, kNoValue);
  std::array<int64_t, kMemoryCategoryCount> current{}, at_peak{};
  int64_t total = 0;
  for (size_t i = 0; i < t.size();) {
    const TimeNs time = t.time[i];
    for (; i < t.size() && t.time[i] == time; ++i) {
      SaturatingAdd(current[static_cast<size_t>(t.category[i])], t.bytes[i]);
      SaturatingAdd(total, t.bytes[i]);
    }
    if (builder.Level(time == kNoValue ? out.x_start : time, total, kNoValue)) at_peak = current;
  }
  builder.Finish();
  out.peak_site_kind = "category";
  std::vector<PeakAllocation> sites;
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    if (at_peak[c] <= 0) continue;
    sites.push_back({std::string(MemoryCategoryName(static_cast<MemoryCategory>(c))), at_peak[c]});
  }
  memory_series::SetPeakSites(out, std::move(sites));
  result.devices.push_back(std::move(out));
  return result;
}

}  // namespace gpuwhy
