// ComputeTraceMemorySeries: a trace's [memory] events (profile_memory=True) carry the
// allocator's own totals, so the levels need no replay; what was live at the peak is replayed
// by address and named by the CPU op that allocated it (Kineto records no stack frames).
#include <algorithm>
#include <map>

#include "analyze/memory_series_builder.h"
#include "analyze/memory_timeline_series.h"

namespace gpuwhy {
namespace {

using memory_series::SeriesBuilder;

// Allocation wrappers say nothing about who asked: their caller names the site.
bool IsAllocatorOp(std::string_view name) {
  return name.starts_with("aten::empty") || name == "aten::resize_" || name == "aten::new_empty" ||
         name == "aten::new_empty_strided";
}

// The innermost op on |thread| running at |ts| that is not an allocation wrapper; "" when none.
std::string OpAt(const Trace& trace, ThreadId thread, TimeNs ts) {
  if (!thread.valid() || thread.value >= trace.threads.size()) return "";
  const CpuSliceTable& slices = trace.cpu_slices;
  const auto [begin, end] = trace.ThreadRows(thread);
  // The last slice starting at or before |ts|; the slices containing ts are it or its parents.
  size_t lo = begin, hi = end;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (slices.start[mid] <= ts) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == begin) return "";
  CpuSliceId id(static_cast<uint32_t>(lo - 1));
  for (size_t guard = 0; id.valid() && guard < 1024; ++guard) {
    const size_t i = id.value;
    const std::string_view name = trace.Str(slices.name[i]);
    if (slices.end[i] >= ts && slices.kind[i] == CpuSliceKind::kOp && !IsAllocatorOp(name)) {
      return std::string(name);
    }
    id = i < slices.parent.size() ? slices.parent[i] : CpuSliceId();
  }
  return "";
}

DeviceMemorySeriesResult TraceDevice(const Trace& trace, int32_t device,
                                     const std::vector<uint32_t>& order, size_t buckets) {
  const auto& rows = trace.memory_events.rows;
  DeviceMemorySeriesResult out;
  out.device = device;
  out.source = "[memory] events";
  out.has_reserved = true;
  const Interval span = trace.span();
  out.x_start =
      std::min(span.length() > 0 ? span.start : rows[order.front()].ts, rows[order.front()].ts);
  out.x_end = std::max(span.length() > 0 ? span.end : rows[order.back()].ts, rows[order.back()].ts);
  SeriesBuilder builder(out, buckets, kNoValue, kNoValue);
  int64_t peak_row = -1;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& row = rows[order[i]];
    if (builder.Level(row.ts, row.total_allocated, row.total_reserved)) {
      peak_row = static_cast<int64_t>(i);
    }
  }
  builder.Finish();
  if (peak_row < 0) out.peak_allocated = 0;
  std::unordered_map<int64_t, std::pair<int64_t, uint32_t>> live;
  for (int64_t i = 0; i <= peak_row; ++i) {
    const uint32_t r = order[static_cast<size_t>(i)];
    const int64_t addr = static_cast<int64_t>(rows[r].addr);
    if (rows[r].bytes > 0) live[addr] = {rows[r].bytes, r};
    if (rows[r].bytes < 0) live.erase(addr);
  }
  out.peak_site_kind = "CPU op";
  memory_series::AddLiveSites(out, live,
                              [&](uint32_t r) { return OpAt(trace, rows[r].thread, rows[r].ts); });
  return out;
}

}  // namespace

MemorySeriesResult ComputeTraceMemorySeries(const Trace& trace, size_t buckets) {
  MemorySeriesResult result;
  const auto& rows = trace.memory_events.rows;
  std::map<int32_t, std::vector<uint32_t>> by_device;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    // Device allocator events only (device_type 0 is the CPU allocator).
    if (rows[i].device_type != 0 && rows[i].device_id >= 0)
      by_device[rows[i].device_id].push_back(i);
  }
  if (by_device.empty()) {
    result.not_applicable.push_back(
        "memory over time: no allocator events (profile_memory=True records them)");
  }
  for (auto& entry : by_device) {
    if (result.devices.size() == kMemorySeriesDevices) break;
    std::vector<uint32_t>& order = entry.second;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return rows[a].ts < rows[b].ts; });
    result.devices.push_back(TraceDevice(trace, entry.first, order,
                                         memory_series::DeviceBuckets(buckets, by_device.size())));
  }
  return result;
}

}  // namespace gpuwhy
