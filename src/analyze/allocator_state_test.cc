#include "analyze/allocator_state.h"

#include <gtest/gtest.h>

#include "synth/memory_steps.h"

namespace gpuwhy {
namespace allocator_state_test {

constexpr int64_t kMiB = int64_t{1} << 20;

// One segment of |total| bytes holding |allocated| in one live block and the rest in |free_blocks|
// equal inactive blocks.
void AddSegment(MemorySnapshot& s, int64_t total, int64_t allocated, int free_blocks) {
  MemorySegment seg;
  seg.total_size = total;
  seg.allocated_size = allocated;
  seg.first_block = static_cast<uint32_t>(s.blocks.size());
  if (allocated > 0) s.blocks.push_back({0, allocated, allocated, BlockState::kActiveAllocated});
  for (int i = 0; i < free_blocks; ++i) {
    s.blocks.push_back({0, (total - allocated) / free_blocks, kNoValue, BlockState::kInactive});
  }
  seg.block_count = static_cast<uint32_t>(s.blocks.size() - seg.first_block);
  s.segments.push_back(seg);
}

void Trace(MemorySnapshot& s, MemoryAction action, int64_t size, int n = 1) {
  for (int i = 0; i < n; ++i)
    s.trace.push_back({static_cast<TimeNs>(s.trace.size()), 0, action, 0, size});
}

TEST(AllocatorStateTest, CachedFreeBytesAndTheLargestFreeBlock) {
  MemorySnapshot s;
  AddSegment(s, 100 * kMiB, 60 * kMiB, 4);
  AddSegment(s, 20 * kMiB, 0, 1);
  AllocatorState a = AnalyzeAllocatorState(s);
  EXPECT_EQ(a.reserved, 120 * kMiB);
  EXPECT_EQ(a.allocated, 60 * kMiB);
  EXPECT_EQ(a.cached_free, 60 * kMiB);
  EXPECT_DOUBLE_EQ(a.cached_free_pct, 50);
  EXPECT_EQ(a.free_blocks, 5);
  EXPECT_EQ(a.largest_free_block, 20 * kMiB);
  EXPECT_EQ(a.empty_segments, 1);
  EXPECT_EQ(a.free_in_used_segments, 40 * kMiB);
  EXPECT_FALSE(a.has_trace);
  EXPECT_EQ(a.peak_allocated, kNoValue);
  EXPECT_EQ(a.capacity, kNoValue);
}

TEST(AllocatorStateTest, TheTracePeakExplainsACachedReservation) {
  MemorySnapshot s;
  AddSegment(s, 1000 * kMiB, 100 * kMiB, 1);
  Trace(s, MemoryAction::kAlloc, 900 * kMiB);
  Trace(s, MemoryAction::kFreeCompleted, 900 * kMiB);
  AllocatorState a = AnalyzeAllocatorState(s);
  EXPECT_EQ(a.peak_allocated, 1000 * kMiB);  // 100 MiB still live + the 900 MiB peak
  EXPECT_TRUE(a.reserved_explained_by_peak);
}

TEST(AllocatorStateTest, CountsSegmentChurnAndOoms) {
  MemorySnapshot s;
  AddSegment(s, 100 * kMiB, 100 * kMiB, 0);
  Trace(s, MemoryAction::kSegmentAlloc, 20 * kMiB, 3);
  Trace(s, MemoryAction::kSegmentFree, 20 * kMiB, 2);
  Trace(s, MemoryAction::kOom, 512 * kMiB);
  AllocatorState a = AnalyzeAllocatorState(s);
  EXPECT_EQ(a.segment_allocs, 3);
  EXPECT_EQ(a.segment_frees, 2);
  EXPECT_EQ(a.segment_free_bytes, 40 * kMiB);
  EXPECT_EQ(a.ooms, 1);
  EXPECT_EQ(a.largest_oom_request, 512 * kMiB);
}

// Issue 36: the state at the OOM, not after the exception freed everything. The snapshot ends
// with 100 MiB live in 1000 MiB reserved; at the OOM 800 MiB more were live (freed after it),
// and a 200 MiB segment mapped after the OOM was not reserved yet.
TEST(AllocatorStateTest, AnOomIsJudgedAtTheMomentItHappened) {
  MemorySnapshot s;
  AddSegment(s, 1000 * kMiB, 100 * kMiB, 1);
  Trace(s, MemoryAction::kAlloc, 800 * kMiB);
  Trace(s, MemoryAction::kOom, 300 * kMiB);
  Trace(s, MemoryAction::kFreeCompleted, 800 * kMiB);
  Trace(s, MemoryAction::kSegmentAlloc, 200 * kMiB);
  AllocatorState a = AnalyzeAllocatorState(s);
  EXPECT_EQ(a.oom_request, 300 * kMiB);
  EXPECT_EQ(a.oom_live, 900 * kMiB);
  EXPECT_EQ(a.oom_reserved, 800 * kMiB);
  EXPECT_EQ(a.oom_cached_free, 0);       // nothing cached at the failure: not fragmentation
  EXPECT_EQ(a.cached_free, 900 * kMiB);  // the end state would have said fragmentation
}

// empty_cache() at start-up releases the cache in one run while little is live: a one-off;
// runs repeated between allocations are churn.
TEST(AllocatorStateTest, SegmentReleasesAreCountedInRunsWithTheLiveBytesAtTheirStart) {
  MemorySnapshot s;
  AddSegment(s, 1000 * kMiB, 0, 1);
  Trace(s, MemoryAction::kSegmentFree, 20 * kMiB, 5);
  Trace(s, MemoryAction::kAlloc, 900 * kMiB);
  Trace(s, MemoryAction::kFreeCompleted, 900 * kMiB);
  AllocatorState a = AnalyzeAllocatorState(s);
  EXPECT_EQ(a.segment_free_bursts, 1);
  EXPECT_EQ(a.segment_free_burst_live, 0);
  EXPECT_EQ(a.peak_allocated, 900 * kMiB);
  Trace(s, MemoryAction::kAlloc, 10 * kMiB);
  Trace(s, MemoryAction::kFreeCompleted, 10 * kMiB);
  Trace(s, MemoryAction::kSegmentFree, 20 * kMiB, 5);
  EXPECT_EQ(AnalyzeAllocatorState(s).segment_free_bursts, 2);
}

TEST(AllocatorStateTest, AllocationSitesAreTheUserFrameOutsideTorch) {
  MemorySnapshot s;
  const auto frame = [&](const char* name, const char* file, int64_t line) {
    s.frames.push_back({s.strings.Intern(name), s.strings.Intern(file), line});
    return static_cast<uint32_t>(s.frames.size() - 1);
  };
  s.stack_offsets = {0};
  for (uint32_t f : {frame("malloc", "CUDACachingAllocator.cpp", 0),
                     frame("forward", "/venv/site-packages/torch/nn/linear.py", 125),
                     frame("forward", "/work/model.py", 42)}) {
    s.stack_frames.push_back(f);
  }
  s.stack_offsets.push_back(3);
  AddSegment(s, 10 * kMiB, 8 * kMiB, 1);
  s.blocks[0].stack = 0;
  Trace(s, MemoryAction::kAlloc, 8 * kMiB);
  s.trace.back().stack = 0;
  AllocatorState a = AnalyzeAllocatorState(s);
  ASSERT_EQ(a.top_sites.size(), 1u);
  EXPECT_EQ(a.top_sites[0].frame, "/work/model.py:42:forward");
  EXPECT_EQ(a.top_sites[0].live_bytes, 8 * kMiB);
  EXPECT_EQ(a.top_sites[0].allocations, 1);
}

// A trace of 10 steps each leaving 300 MiB (synth/memory_steps.h): the level is anchored at the
// 3,600 MiB alive at the snapshot, so the windows' troughs run 900 to 3,000 MiB, as the same
// loop's memory timeline gives; freeing everything leaves them at the 600 MiB of parameters.
TEST(AllocatorStateTest, TraceWindowTroughsRiseWithALeak) {
  const AllocatorState leak = AnalyzeAllocatorState(SyntheticStepSnapshot(10, 600, 300, 4096));
  ASSERT_EQ(leak.allocated_by_print.size(), 7u);
  EXPECT_EQ(leak.allocated_by_print.front(), 900 * kMiB);
  EXPECT_EQ(leak.allocated_by_print.back(), 3000 * kMiB);
  EXPECT_EQ(leak.print_series,
            "windows of the allocator trace (each one's lowest allocated bytes)");
  const AllocatorState flat = AnalyzeAllocatorState(SyntheticStepSnapshot(10, 600, 0, 2048));
  EXPECT_EQ(flat.allocated_by_print, std::vector<int64_t>(7, 600 * kMiB));
  EXPECT_EQ(flat.peak_allocated, 1624 * kMiB);
}

}  // namespace allocator_state_test
}  // namespace gpuwhy
