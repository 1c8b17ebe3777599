// The bounded memory series: a hand-made snapshot's levels, markers and what was live at its
// peak (by frame), a million-entry trace whose one-entry spike survives 1,000 buckets, a
// memory timeline's peak against AnalyzeMemoryTimeline, a trace's [memory] events named by the
// CPU op that allocated them, and untimed snapshot entries on an entry-index axis.
#include "analyze/memory_timeline_series.h"

#include <gtest/gtest.h>

#include "analyze/allocator_state.h"
#include "analyze/launch_test_util.h"
#include "analyze/memory_timeline_stats.h"
#include "synth/memory_steps.h"

namespace gpuwhy {
namespace memory_timeline_series_test {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

int64_t HighestMax(const DeviceMemorySeriesResult& d) {
  int64_t most = kNoValue;
  for (const MemoryBucket& b : d.buckets) most = std::max(most, b.allocated.max);
  return most;
}

void Entry(MemorySnapshot& s, TimeNs time, MemoryAction action, int64_t address, int64_t size,
           StackId stack = kNoStack) {
  MemoryTraceEntry e;
  e.time = time;
  e.action = action;
  e.address = address;
  e.size = size;
  e.stack = stack;
  s.trace.push_back(e);
}

// 1 MiB allocated before the trace; 2 + 3 + 1 MiB allocated (peak 7 MiB at t=4000), 3 + 1 freed;
// one 8 MiB segment cudaMalloc'd at the start; an OOM asking for 64 MiB.
MemorySnapshot HandSnapshot() {
  MemorySnapshot s;
  s.frames.push_back({s.strings.Intern("forward"), s.strings.Intern("model.py"), 12});
  s.frames.push_back({s.strings.Intern("step"), s.strings.Intern("train.py"), 40});
  s.stack_frames = {0, 1};
  s.stack_offsets = {0, 1, 2};
  Entry(s, 1000, MemoryAction::kSegmentAlloc, 0, 8 * kMiB);
  Entry(s, 2000, MemoryAction::kAlloc, 100, 2 * kMiB, 0);
  Entry(s, 3000, MemoryAction::kAlloc, 200, 3 * kMiB, 1);
  Entry(s, 4000, MemoryAction::kAlloc, 300, 1 * kMiB, 0);
  Entry(s, 5000, MemoryAction::kFreeCompleted, 200, 3 * kMiB);
  Entry(s, 6000, MemoryAction::kFreeCompleted, 300, 1 * kMiB);
  Entry(s, 7000, MemoryAction::kOom, kNoValue, 64 * kMiB);
  MemorySegment seg;
  seg.total_size = 8 * kMiB;
  seg.allocated_size = 3 * kMiB;
  s.segments.push_back(seg);
  return s;
}

TEST(MemoryTimelineSeriesTest, SnapshotLevelsMarkersAndThePeaksSites) {
  const MemorySnapshot s = HandSnapshot();
  const MemorySeriesResult r = ComputeSnapshotMemorySeries(s, 6);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemorySeriesResult& d = r.devices[0];
  EXPECT_EQ(d.axis, MemoryAxis::kTime);
  EXPECT_EQ(d.x_start, 1000);
  EXPECT_EQ(d.x_end, 7000);
  ASSERT_EQ(d.buckets.size(), 6u);
  EXPECT_EQ(d.peak_allocated, 7 * kMiB);
  EXPECT_EQ(d.peak_x, 4000);
  EXPECT_EQ(d.peak_allocated, AnalyzeAllocatorState(s).peak_allocated);
  EXPECT_EQ(HighestMax(d), d.peak_allocated);
  EXPECT_EQ(d.peak_reserved, 8 * kMiB);
  // Bucket 0 holds t=1000 (reserved 0 -> 8 MiB, allocated 1 MiB before the trace); the last
  // one ends at the snapshot's 3 MiB.
  EXPECT_EQ(d.buckets[0].allocated.min, 1 * kMiB);
  EXPECT_EQ(d.buckets[0].reserved.min, 0);
  EXPECT_EQ(d.buckets[0].reserved.max, 8 * kMiB);
  EXPECT_EQ(d.buckets.back().allocated.last, 3 * kMiB);
  EXPECT_EQ(d.buckets.back().reserved.last, 8 * kMiB);
  EXPECT_EQ(d.marker_totals[static_cast<size_t>(MemoryMarkerKind::kSegmentAlloc)], 1);
  EXPECT_EQ(d.marker_totals[static_cast<size_t>(MemoryMarkerKind::kOom)], 1);
  ASSERT_EQ(d.markers.size(), 2u);
  EXPECT_EQ(d.markers[1].kind, MemoryMarkerKind::kOom);
  EXPECT_EQ(d.markers[1].bytes, 64 * kMiB);
  EXPECT_EQ(d.buckets.back().markers[static_cast<size_t>(MemoryMarkerKind::kOom)], 1);
  // At the peak: model.py 2 + 1 MiB, train.py 3 MiB, and the 1 MiB from before the trace.
  EXPECT_EQ(d.peak_site_kind, "frame");
  ASSERT_EQ(d.peak_sites.size(), 2u);
  EXPECT_EQ(d.peak_sites[0].site, "model.py:12:forward");
  EXPECT_EQ(d.peak_sites[0].bytes, 3 * kMiB);
  EXPECT_EQ(d.peak_sites[0].count, 2);
  EXPECT_EQ(d.peak_sites[1].site, "train.py:40:step");
  EXPECT_EQ(d.peak_unattributed, 1 * kMiB);
}

// A million entries: alloc/free pairs of 1 MiB, one 1 GiB spike freed by the next entry, a
// segment_alloc every 1,000 pairs and 300 OOMs. The spike is the peak of its bucket; markers
// are listed up to the bound and counted in full.
TEST(MemoryTimelineSeriesTest, AMillionEntriesKeepTheirPeakInAThousandBuckets) {
  MemorySnapshot s;
  constexpr size_t kEntries = 1'000'000;
  s.trace.reserve(kEntries + 4);
  int64_t segments = 0, ooms = 0;
  for (int64_t i = 0; s.trace.size() < kEntries; ++i) {
    const TimeNs t = 1000 * i;
    Entry(s, t, MemoryAction::kAlloc, 1, kMiB);
    Entry(s, t + 1, MemoryAction::kFreeCompleted, 1, kMiB);
    if (i == 200'001) {
      Entry(s, t + 2, MemoryAction::kAlloc, 7, kGiB);
      Entry(s, t + 3, MemoryAction::kFreeCompleted, 7, kGiB);
    } else if (i % 1000 == 0) {
      Entry(s, t + 2, MemoryAction::kSegmentAlloc, i, 2 * kMiB);
      ++segments;
    } else if (i % 1001 == 0 && ooms < 300) {
      Entry(s, t + 2, MemoryAction::kOom, kNoValue, kGiB);
      ++ooms;
    }
  }
  const MemorySeriesResult r = ComputeSnapshotMemorySeries(s);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemorySeriesResult& d = r.devices[0];
  EXPECT_EQ(d.buckets.size(), kMemorySeriesBuckets);
  EXPECT_EQ(d.entries, static_cast<int64_t>(s.trace.size()) - ooms);  // OOMs change no level
  EXPECT_EQ(d.peak_allocated, AnalyzeAllocatorState(s).peak_allocated);
  EXPECT_EQ(d.peak_allocated, kGiB);
  EXPECT_EQ(d.peak_x, 1000 * 200'001 + 2);
  EXPECT_EQ(HighestMax(d), d.peak_allocated);
  EXPECT_EQ(d.marker_totals[static_cast<size_t>(MemoryMarkerKind::kSegmentAlloc)], segments);
  EXPECT_EQ(d.marker_totals[static_cast<size_t>(MemoryMarkerKind::kOom)], ooms);
  EXPECT_EQ(d.markers.size(), 2 * kMemoryMarkerLimit);
  int64_t counted = 0;
  for (const MemoryBucket& b : d.buckets)
    counted += b.markers[static_cast<size_t>(MemoryMarkerKind::kOom)];
  EXPECT_EQ(counted, ooms);
  // The spike was the only live allocation then, from no frame.
  EXPECT_EQ(d.peak_unattributed, kGiB);
}

TEST(MemoryTimelineSeriesTest, TimelinePeakAndCategoriesMatchTheTimelineStats) {
  const MemoryTimeline t = SyntheticStepTimeline(10, 512, 300);
  const MemorySeriesResult r = ComputeTimelineMemorySeries(t);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemorySeriesResult& d = r.devices[0];
  const MemoryTimelineStats stats = AnalyzeMemoryTimeline(t);
  EXPECT_EQ(d.peak_allocated, stats.peak_bytes);
  EXPECT_EQ(d.peak_x - d.x_start, stats.peak_offset);
  EXPECT_EQ(HighestMax(d), d.peak_allocated);
  EXPECT_FALSE(d.has_reserved);
  EXPECT_EQ(d.peak_site_kind, "category");
  int64_t sum = 0;
  for (const PeakAllocation& p : d.peak_sites) {
    sum += p.bytes;
    for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
      if (p.site == MemoryCategoryName(static_cast<MemoryCategory>(c))) {
        EXPECT_EQ(p.bytes, stats.peak_by_category[c]) << p.site;
      }
    }
  }
  EXPECT_EQ(sum, d.peak_allocated);
  EXPECT_EQ(d.peak_sites[0].site, "unknown");  // 10 leaked steps of 300 MiB lead the peak
}

TEST(MemoryTimelineSeriesTest, TraceEventsAreNamedByTheOpThatAllocated) {
  testing_util::TinyTrace t;
  t.Op("aten::linear", UsToNs(0), UsToNs(100));
  t.Op("aten::empty", UsToNs(10), UsToNs(20));
  const ThreadId thread = t.trace.GetOrCreateThread(1, 1);
  const auto add = [&](int64_t us, int32_t type, uint64_t addr, int64_t bytes, int64_t total) {
    MemoryEventTable::Row row;
    row.ts = UsToNs(us);
    row.device_type = type;
    row.device_id = 0;
    row.addr = addr;
    row.bytes = bytes;
    row.total_allocated = total;
    row.total_reserved = 8 * kMiB;
    row.thread = thread;
    t.trace.memory_events.rows.push_back(row);
  };
  add(15, 1, 1, 4 * kMiB, 4 * kMiB);
  add(150, 1, 2, 2 * kMiB, 6 * kMiB);  // outside any op
  add(160, 0, 9, kGiB, kGiB);          // the CPU allocator: not drawn
  add(200, 1, 1, -4 * kMiB, 2 * kMiB);
  t.Input();
  const MemorySeriesResult r = ComputeTraceMemorySeries(t.trace);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemorySeriesResult& d = r.devices[0];
  EXPECT_EQ(d.entries, 3);
  EXPECT_EQ(d.peak_allocated, 6 * kMiB);
  EXPECT_EQ(d.peak_x, UsToNs(150));
  EXPECT_EQ(d.peak_reserved, 8 * kMiB);
  EXPECT_EQ(d.peak_site_kind, "CPU op");
  ASSERT_EQ(d.peak_sites.size(), 1u);
  EXPECT_EQ(d.peak_sites[0].site, "aten::linear");  // aten::empty is its allocation wrapper
  EXPECT_EQ(d.peak_sites[0].bytes, 4 * kMiB);
  EXPECT_EQ(d.peak_unattributed, 2 * kMiB);
  // Before the first event the level is unknown, not zero.
  size_t first = 0;
  while (first < d.buckets.size() && d.buckets[first].allocated.min == kNoValue) ++first;
  ASSERT_LT(first, d.buckets.size());
  EXPECT_GT(first, 0u);
  EXPECT_EQ(d.buckets[first].allocated.min, 4 * kMiB);
  EXPECT_EQ(ComputeTraceMemorySeries(Trace{}).devices.size(), 0u);
}

TEST(MemoryTimelineSeriesTest, UntimedEntriesUseTheEntryIndex) {
  MemorySnapshot s = HandSnapshot();
  for (MemoryTraceEntry& e : s.trace) e.time = kNoValue;
  const MemorySeriesResult r = ComputeSnapshotMemorySeries(s);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].axis, MemoryAxis::kEntryIndex);
  EXPECT_EQ(r.devices[0].x_end, 6);
  EXPECT_EQ(r.devices[0].buckets.size(), 7u);  // no more buckets than entries
  EXPECT_EQ(r.devices[0].peak_x, 3);
  EXPECT_EQ(r.devices[0].peak_allocated, 7 * kMiB);
  EXPECT_EQ(ComputeSnapshotMemorySeries(MemorySnapshot{}).not_applicable.size(), 1u);
}

}  // namespace memory_timeline_series_test
}  // namespace gpuwhy
