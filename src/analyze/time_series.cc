#include "analyze/time_series.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace gpuwhy {
namespace {

// Adds each interval's length to the buckets it covers (clipped to the window).
std::vector<double> CoveredPct(const IntervalSet& set, const TimeSeriesResult& r) {
  std::vector<double> ns(r.bucket_count, 0.0);
  for (const Interval& in : set.intervals()) {
    TimeNs start = std::max(in.start, r.window.start);
    TimeNs end = std::min(in.end, r.window.end);
    if (start >= end) continue;
    size_t first = static_cast<size_t>((start - r.window.start) / r.bucket_ns);
    for (size_t b = std::min(first, r.bucket_count - 1); b < r.bucket_count; ++b) {
      Interval bucket = r.Bucket(b);
      if (bucket.start >= end) break;
      ns[b] += static_cast<double>(std::min(end, bucket.end) - std::max(start, bucket.start));
    }
  }
  for (size_t b = 0; b < r.bucket_count; ++b) {
    DurationNs length = r.Bucket(b).length();
    ns[b] = length > 0 ? 100.0 * ns[b] / static_cast<double>(length) : 0.0;
  }
  return ns;
}

size_t BucketOf(TimeNs t, const TimeSeriesResult& r) {
  if (t <= r.window.start) return 0;
  return std::min(static_cast<size_t>((t - r.window.start) / r.bucket_ns), r.bucket_count - 1);
}

std::vector<DeviceMemorySeries> MemorySeries(const Trace& trace, const TimeSeriesResult& r) {
  const auto& rows = trace.memory_events.rows;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    // Device allocator events only (device_type 0 is the CPU allocator).
    if (rows[i].device_type != 0 && rows[i].device_id >= 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return rows[a].ts < rows[b].ts; });
  std::vector<DeviceMemorySeries> out;
  auto series_for = [&](int32_t device) -> DeviceMemorySeries& {
    for (DeviceMemorySeries& s : out) {
      if (s.device == device) return s;
    }
    out.push_back({device, std::vector<int64_t>(r.bucket_count, kNoValue),
                   std::vector<int64_t>(r.bucket_count, kNoValue)});
    return out.back();
  };
  // Highest value per bucket; events before the window carry into the first bucket.
  for (uint32_t i : order) {
    const auto& row = rows[i];
    if (row.ts >= r.window.end) break;
    DeviceMemorySeries& s = series_for(row.device_id);
    size_t b = BucketOf(row.ts, r);
    if (row.total_allocated != kNoValue) {
      s.allocated_bytes[b] = row.ts < r.window.start
                                 ? row.total_allocated
                                 : std::max(s.allocated_bytes[b], row.total_allocated);
    }
    if (row.total_reserved != kNoValue) {
      s.reserved_bytes[b] = row.ts < r.window.start
                                ? row.total_reserved
                                : std::max(s.reserved_bytes[b], row.total_reserved);
    }
  }
  // Carry the last value into buckets without events. The carried value is the bucket's
  // max, a slight over-estimate of the value at its end; good enough for a picture.
  for (DeviceMemorySeries& s : out) {
    for (auto* column : {&s.allocated_bytes, &s.reserved_bytes}) {
      for (size_t b = 1; b < column->size(); ++b) {
        if ((*column)[b] == kNoValue) (*column)[b] = (*column)[b - 1];
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const DeviceMemorySeries& a, const DeviceMemorySeries& b) {
    return a.device < b.device;
  });
  return out;
}

}  // namespace

Interval TimeSeriesResult::Bucket(size_t i) const {
  TimeNs start = window.start + static_cast<TimeNs>(i) * bucket_ns;
  TimeNs end = i + 1 == bucket_count ? window.end : start + bucket_ns;
  return {start, end};
}

TimeSeriesResult ComputeTimeSeries(const AnalysisInput& input, const UtilizationResult& utilization,
                                   const IdleGapsResult& idle, size_t buckets) {
  TimeSeriesResult r;
  if (!utilization.valid || utilization.window.length() <= 0 || buckets == 0) {
    r.not_applicable.push_back(
        "time series: no utilization window (no GPU op in the analysed steps)");
    return r;
  }
  r.window = utilization.window;
  // The per-device series cost devices x buckets: past kFullSeriesDevices devices the buckets
  // shrink so that all of them hold what that many would (20,000 devices held 422 MB of series
  // for a 6 MB trace; issue 37). A report draws at most that many devices (report_rows.h).
  constexpr size_t kFullSeriesDevices = 64;
  const size_t device_count = input.timelines.by_device.size();
  if (device_count > kFullSeriesDevices)
    buckets = std::min(buckets, std::max<size_t>(4, buckets * kFullSeriesDevices / device_count));
  DurationNs length = r.window.length();
  r.bucket_count =
      static_cast<size_t>(std::min<DurationNs>(static_cast<DurationNs>(buckets), length));
  r.bucket_ns = length / static_cast<DurationNs>(r.bucket_count);
  std::map<int32_t, const DeviceIdleGaps*> idle_of;  // one look-up per device, not a scan
  for (const DeviceIdleGaps& d : idle.devices) idle_of.emplace(d.device, &d);
  for (const auto& [device, timeline] : input.timelines.by_device) {
    DeviceBusySeries s;
    s.device = device;
    s.kernel_pct = CoveredPct(timeline.kernels, r);
    s.gpu_op_pct = CoveredPct(timeline.all_ops, r);
    if (auto it = idle_of.find(device); it != idle_of.end()) {
      for (size_t c = 0; c < kIdleCauseCount; ++c)
        s.idle_pct[c] = CoveredPct(it->second->by_cause[c], r);
    }
    for (auto& column : s.idle_pct) {
      if (column.empty()) column.assign(r.bucket_count, 0.0);
    }
    r.devices.push_back(std::move(s));
  }
  r.memory = MemorySeries(input.trace, r);
  if (r.memory.empty())
    r.not_applicable.push_back(
        "memory over time: no allocator events (profile_memory=True records them)");
  return r;
}

}  // namespace gpuwhy
