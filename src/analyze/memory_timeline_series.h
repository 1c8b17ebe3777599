// Memory over time, reduced to a picture of bounded size whatever the input's length: allocated
// and reserved bytes in at most kMemorySeriesBuckets equal time buckets, each with its lowest,
// highest and last level (so a peak is never lost by downsampling), allocator events marked
// (OOMs, segment allocs and frees: each listed up to a bound, always counted per bucket), and
// what was live at the peak by allocation site. Three sources: an allocator snapshot's trace
// (replayed from alloc/free_completed and segment_alloc/segment_free, anchored at the
// snapshot's segments), a profiler memory timeline (its rows), and a trace's [memory] events
// (profile_memory=True: the allocator's own totals). Reads the models only; the HTML report
// draws it (docs/html.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/memory_snapshot.h"
#include "model/memory_timeline.h"
#include "model/trace.h"

namespace gpuwhy {

inline constexpr size_t kMemorySeriesBuckets = 1000;
inline constexpr size_t kMemoryMarkerLimit = 200;  // markers listed per kind; the rest counted
inline constexpr size_t kPeakAllocationRows = 15;  // sites listed at the peak
inline constexpr size_t kMemorySeriesDevices = 16;
// Several devices share the buckets (each gets buckets / devices, at least this many), so the
// page stays bounded whatever the device count.
inline constexpr size_t kMinDeviceBuckets = 100;

enum class MemoryMarkerKind : uint8_t { kOom, kSegmentAlloc, kSegmentFree };
inline constexpr size_t kMemoryMarkerKindCount = 3;
std::string_view MemoryMarkerKindName(MemoryMarkerKind kind);  // "oom", "segment_alloc", ...

// One bucket's levels; kNoValue until a level is known (a trace's first [memory] event).
struct MemoryBucketLevels {
  int64_t min = kNoValue;
  int64_t max = kNoValue;
  int64_t last = kNoValue;
};

struct MemoryBucket {
  MemoryBucketLevels allocated;
  MemoryBucketLevels reserved;
  std::array<int32_t, kMemoryMarkerKindCount> markers{};  // events of each kind in the bucket
};

struct MemoryMarker {
  MemoryMarkerKind kind = MemoryMarkerKind::kOom;
  int64_t x = 0;      // on the series' axis (ns or entry index)
  int64_t bytes = 0;  // the request (oom) or the segment's size
};

// Bytes live at the peak from one allocation site: "file.py:12:forward" for a snapshot, the
// profiler's category for a memory timeline, the innermost CPU op for a trace.
struct PeakAllocation {
  std::string site;
  int64_t bytes = 0;
  int64_t count = 0;  // allocations (0 where the source has none: categories)
};

enum class MemoryAxis : uint8_t { kTime, kEntryIndex };

struct DeviceMemorySeriesResult {
  int32_t device = 0;
  std::string source;  // "allocator snapshot trace", "profiler memory timeline", "[memory] events"
  // kEntryIndex: the snapshot's entries carry no time (or not in order), so x is the entry's
  // index in the device's trace.
  MemoryAxis axis = MemoryAxis::kTime;
  int64_t x_start = 0;  // ns on the source's clock, or entry index
  int64_t x_end = 0;
  std::vector<MemoryBucket> buckets;  // equal pieces of [x_start, x_end]
  bool has_reserved = false;          // a memory timeline records tensors only
  int64_t entries = 0;                // events replayed
  int64_t peak_allocated = 0;         // the highest level; the buckets' highest max equals it
  int64_t peak_x = 0;                 // its first occurrence
  int64_t peak_reserved = kNoValue;
  std::vector<MemoryMarker> markers;  // in x order, the first kMemoryMarkerLimit of each kind
  std::array<int64_t, kMemoryMarkerKindCount> marker_totals{};
  std::string peak_site_kind;              // "frame", "category", "CPU op"
  std::vector<PeakAllocation> peak_sites;  // by bytes, at most kPeakAllocationRows
  int64_t peak_unattributed = 0;           // live at the peak, no site (allocated before the
                                           // trace began, or without frames)
  int64_t peak_sites_left_out = 0;         // sites past kPeakAllocationRows
};

struct MemorySeriesResult {
  std::vector<DeviceMemorySeriesResult> devices;  // by device, at most kMemorySeriesDevices
  std::vector<std::string> not_applicable;
};

// Each device's trace of allocator actions; none when _record_memory_history was off.
MemorySeriesResult ComputeSnapshotMemorySeries(const MemorySnapshot& snapshot,
                                               size_t buckets = kMemorySeriesBuckets);
MemorySeriesResult ComputeTimelineMemorySeries(const MemoryTimeline& timeline,
                                               size_t buckets = kMemorySeriesBuckets);
// Device allocator [memory] events (device_type other than CPU), over the trace's span.
MemorySeriesResult ComputeTraceMemorySeries(const Trace& trace,
                                            size_t buckets = kMemorySeriesBuckets);

}  // namespace gpuwhy
