// The bucket filler the memory series share (memory_timeline_series.cc, memory_trace_series.cc):
// internal to src/analyze.
#pragma once

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyze/memory_timeline_series.h"
#include "analyze/window_troughs.h"

namespace gpuwhy::memory_series {

// Each of |devices| devices' share of |buckets|.
inline size_t DeviceBuckets(size_t buckets, size_t devices) {
  const size_t n = std::min(devices, kMemorySeriesDevices);
  return n <= 1 ? buckets : std::max(kMinDeviceBuckets, buckets / n);
}

inline void Apply(MemoryBucketLevels& l, int64_t v) {
  if (v == kNoValue) return;
  l.last = v;
  l.min = l.min == kNoValue ? v : std::min(l.min, v);
  l.max = l.max == kNoValue ? v : std::max(l.max, v);
}

// A level holds until the next event: a bucket starts at the level carried into it.
inline MemoryBucketLevels Carried(const MemoryBucketLevels& l) { return {l.last, l.last, l.last}; }

// Fills one device's buckets from its events in x order; every level lands in its bucket's
// min/max/last, so the buckets' highest max is the series' peak.
class SeriesBuilder {
 public:
  SeriesBuilder(DeviceMemorySeriesResult& out, size_t buckets, int64_t allocated, int64_t reserved)
      : out_(out) {
    const int64_t span = out.x_end - out.x_start;
    size_t n = std::max<size_t>(1, buckets);
    if (span >= 0 && static_cast<uint64_t>(span) < n) n = static_cast<size_t>(span) + 1;
    out_.buckets.assign(n, MemoryBucket{});
    Apply(out_.buckets[0].allocated, allocated);
    Apply(out_.buckets[0].reserved, reserved);
    if (allocated != kNoValue) Peak(allocated, out.x_start);
    if (reserved != kNoValue) out_.peak_reserved = reserved;
  }

  // The levels after an event at |x| (kNoValue: that one unchanged); true at a new peak.
  bool Level(int64_t x, int64_t allocated, int64_t reserved) {
    MemoryBucket& b = Enter(x);
    Apply(b.allocated, allocated);
    Apply(b.reserved, reserved);
    if (reserved != kNoValue) out_.peak_reserved = std::max(out_.peak_reserved, reserved);
    ++out_.entries;
    return allocated != kNoValue && Peak(allocated, x);
  }

  void Marker(MemoryMarkerKind kind, int64_t x, int64_t bytes) {
    const size_t k = static_cast<size_t>(kind);
    ++Enter(x).markers[k];
    ++out_.marker_totals[k];
    if (listed_[k] < kMemoryMarkerLimit) {
      ++listed_[k];
      out_.markers.push_back({kind, x, bytes});
    }
  }

  // Carries the last levels into the buckets after the last event.
  void Finish() { Enter(out_.x_end); }

 private:
  size_t BucketOf(int64_t x) const {
    const int64_t span = out_.x_end - out_.x_start;
    if (span <= 0 || x <= out_.x_start) return 0;
    const double f = static_cast<double>(x - out_.x_start) / static_cast<double>(span);
    const size_t n = out_.buckets.size();
    return std::min(n - 1, static_cast<size_t>(f * static_cast<double>(n)));
  }

  MemoryBucket& Enter(int64_t x) {
    const size_t b = std::max(current_, BucketOf(x));
    for (; current_ < b; ++current_) {
      MemoryBucket& next = out_.buckets[current_ + 1];
      next.allocated = Carried(out_.buckets[current_].allocated);
      next.reserved = Carried(out_.buckets[current_].reserved);
    }
    return out_.buckets[current_];
  }

  bool Peak(int64_t allocated, int64_t x) {
    if (seen_ && allocated <= out_.peak_allocated) return false;
    seen_ = true;
    out_.peak_allocated = allocated;
    out_.peak_x = x;
    return true;
  }

  DeviceMemorySeriesResult& out_;
  size_t current_ = 0;
  std::array<size_t, kMemoryMarkerKindCount> listed_{};
  bool seen_ = false;
};

// Sites by bytes (then name), cut to kPeakAllocationRows.
inline void SetPeakSites(DeviceMemorySeriesResult& out, std::vector<PeakAllocation> sites) {
  std::sort(sites.begin(), sites.end(), [](const PeakAllocation& a, const PeakAllocation& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.site < b.site;
  });
  if (sites.size() > kPeakAllocationRows) {
    out.peak_sites_left_out = static_cast<int64_t>(sites.size() - kPeakAllocationRows);
    sites.resize(kPeakAllocationRows);
  }
  out.peak_sites = std::move(sites);
}

// Live allocations (address -> bytes and where they came from) summed by a site name.
template <typename SiteOf>
inline void AddLiveSites(DeviceMemorySeriesResult& out,
                         const std::unordered_map<int64_t, std::pair<int64_t, uint32_t>>& live,
                         SiteOf site_of) {
  std::unordered_map<std::string, PeakAllocation> by_site;
  int64_t attributed = 0;
  for (const auto& entry : live) {
    const std::string site = site_of(entry.second.second);
    if (site.empty()) continue;
    PeakAllocation& p = by_site[site];
    p.site = site;
    SaturatingAdd(p.bytes, entry.second.first);
    ++p.count;
    SaturatingAdd(attributed, entry.second.first);
  }
  std::vector<PeakAllocation> sites;
  for (auto& [name, p] : by_site) sites.push_back(std::move(p));
  SetPeakSites(out, std::move(sites));
  out.peak_unattributed = std::max<int64_t>(0, out.peak_allocated - attributed);
}

}  // namespace gpuwhy::memory_series
