// The block-level replay to an OOM: hand-made traces whose free blocks at the failure are known,
// and every real snapshot of ../shared/data replayed back to its trace's first entry.
#include "analyze/memory_oom_replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "analyze/allocator_state.h"
#include "base/file_input.h"
#include "base/fuzz_mutator.h"
#include "ingest/memory/snapshot_importer.h"

namespace gpuwhy {
namespace memory_oom_replay_test {

namespace fs = std::filesystem;

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kBase = int64_t{0x7f00} << 32;

// One large segment of |total| at kBase, every block free at the snapshot (the exception freed
// what was live at the OOM).
MemorySnapshot FreedSegment(int64_t total) {
  MemorySnapshot s;
  MemorySegment seg;
  seg.address = kBase;
  seg.total_size = total;
  seg.allocated_size = 0;
  seg.pool = SegmentPool::kLarge;
  seg.stream = 0;
  seg.first_block = 0;
  seg.block_count = 1;
  s.segments.push_back(seg);
  s.blocks.push_back({kBase, total, 0, BlockState::kInactive});
  return s;
}

void Entry(MemorySnapshot& s, MemoryAction action, int64_t offset_mib, int64_t size_mib) {
  MemoryTraceEntry e;
  e.time = static_cast<TimeNs>(s.trace.size());
  e.action = action;
  e.address = kBase + offset_mib * kMiB;
  e.size = size_mib * kMiB;
  e.stream = 0;
  s.trace.push_back(e);
}

// At the OOM: 30 MiB live, 15 free, 20 live, 35 free of a 100 MiB segment; a 40 MiB request
// fits the 50 MiB free in all but no one block: fragmentation. The end state, all free, would
// have shown one 100 MiB block.
TEST(MemoryOomReplayTest, TheFreeBlocksAtTheOomAreTheGapsBetweenWhatWasLiveThen) {
  MemorySnapshot s = FreedSegment(100 * kMiB);
  Entry(s, MemoryAction::kSegmentAlloc, 0, 100);
  Entry(s, MemoryAction::kAlloc, 0, 30);
  Entry(s, MemoryAction::kAlloc, 30, 15);
  Entry(s, MemoryAction::kAlloc, 45, 20);
  Entry(s, MemoryAction::kFreeCompleted, 30, 15);
  Entry(s, MemoryAction::kOom, 0, 40);
  s.trace.back().address = 0;
  Entry(s, MemoryAction::kFreeCompleted, 0, 30);
  Entry(s, MemoryAction::kFreeCompleted, 45, 20);
  const FreeBlocksAt at = ReplayFreeBlocks(s, 0, 5, 40 * kMiB, 0);
  ASSERT_TRUE(at.replayed) << at.disagreement;
  EXPECT_EQ(at.entries_undone, 3u);
  EXPECT_EQ(at.pool, SegmentPool::kLarge);
  EXPECT_EQ(at.free_blocks, 2);
  EXPECT_EQ(at.largest_free_block, 35 * kMiB);
  EXPECT_EQ(at.free_bytes, 50 * kMiB);
  // The blocks that came back by an undone free may have kept up to 1 MiB unsplit behind them.
  EXPECT_EQ(at.largest_free_block_min, 34 * kMiB);
  EXPECT_EQ(at.free_bytes_min, 48 * kMiB);
  EXPECT_EQ(at.live, 50 * kMiB);
  EXPECT_EQ(at.reserved, 100 * kMiB);
  // At the snapshot: one free block, the whole segment.
  const FreeBlocksAt end = ReplayFreeBlocks(s, 0, s.trace.size(), 40 * kMiB, 0);
  ASSERT_TRUE(end.replayed);
  EXPECT_EQ(end.largest_free_block, 100 * kMiB);
  EXPECT_EQ(end.largest_free_block_min, 100 * kMiB);
  // Before anything: no segment, nothing free.
  const FreeBlocksAt start = ReplayFreeBlocks(s, 0, 0, 40 * kMiB, 0);
  ASSERT_TRUE(start.replayed) << start.disagreement;
  EXPECT_EQ(start.reserved, 0);
  // AnalyzeAllocatorState carries it for the first OOM entry.
  const AllocatorState a = AnalyzeAllocatorState(s);
  ASSERT_TRUE(a.oom_blocks.has_value());
  EXPECT_EQ(a.oom_blocks->largest_free_block, 35 * kMiB);
}

// Pools and streams: a 40 MiB request cannot use a small segment's block or a block of a
// segment another stream owns; a segment released after the OOM was there at it; a segment
// mapped after it was not.
TEST(MemoryOomReplayTest, OnlyTheRequestsPoolAndStreamCountAndSegmentsComeAndGo) {
  MemorySnapshot s = FreedSegment(100 * kMiB);
  Entry(s, MemoryAction::kAlloc, 0, 90);
  Entry(s, MemoryAction::kOom, 0, 40);
  Entry(s, MemoryAction::kFreeCompleted, 0, 90);
  Entry(s, MemoryAction::kSegmentFree, 200, 60);  // released after the OOM, 60 MiB free in it
  s.trace.back().stream = 7;
  Entry(s, MemoryAction::kSegmentFree, 300, 2);  // a small segment
  Entry(s, MemoryAction::kSegmentAlloc, 400, 80);
  // The segment mapped after the OOM is in the snapshot.
  MemorySegment later;
  later.address = kBase + 400 * kMiB;
  later.total_size = 80 * kMiB;
  later.pool = SegmentPool::kLarge;
  later.first_block = 1;
  later.block_count = 1;
  s.segments.push_back(later);
  s.blocks.push_back({later.address, 80 * kMiB, 0, BlockState::kInactive});
  FreeBlocksAt at = ReplayFreeBlocks(s, 0, 1, 40 * kMiB, 0);
  ASSERT_TRUE(at.replayed) << at.disagreement;
  EXPECT_EQ(at.reserved, 162 * kMiB);
  EXPECT_EQ(at.segments, 1);  // stream 7's and the small one do not count
  EXPECT_EQ(at.largest_free_block, 10 * kMiB);
  EXPECT_EQ(at.free_bytes, 10 * kMiB);
  at = ReplayFreeBlocks(s, 0, 1, 40 * kMiB, kNoValue);  // any stream
  EXPECT_EQ(at.largest_free_block, 60 * kMiB);
  at = ReplayFreeBlocks(s, 0, 1, 512, 0);  // a small request: the small pool only
  EXPECT_EQ(at.pool, SegmentPool::kSmall);
  EXPECT_EQ(at.largest_free_block, 2 * kMiB);
}

// A trace that names a block the state does not hold says so instead of guessing.
TEST(MemoryOomReplayTest, ATraceThatDisagreesWithTheSnapshotIsNotReplayed) {
  MemorySnapshot s = FreedSegment(100 * kMiB);
  Entry(s, MemoryAction::kAlloc, 10, 5);  // never freed, yet nothing is live at the snapshot
  const FreeBlocksAt at = ReplayFreeBlocks(s, 0, 0, 40 * kMiB, 0);
  EXPECT_FALSE(at.replayed);
  EXPECT_NE(at.disagreement.find("entry 0: the block allocated at"), std::string::npos)
      << at.disagreement;
  MemorySnapshot outside = FreedSegment(100 * kMiB);
  Entry(outside, MemoryAction::kFreeCompleted, 500, 5);
  EXPECT_NE(ReplayFreeBlocks(outside, 0, 0, kMiB, 0).disagreement.find("lies in no segment"),
            std::string::npos);
}

// Every real snapshot with a trace replays back to its first entry without a disagreement, and
// at the snapshot itself the largest free block is the largest inactive block of the pool.
TEST(MemoryOomReplayTest, EveryRealTraceReplaysToItsStart) {
  const fs::path dir = fs::path(GPUWHY_SHARED_DATA) / "memory" / "snapshots";
  if (!fs::exists(dir)) GTEST_SKIP() << "no shared data at " << dir;
  size_t traced = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    StatusOr<std::string> bytes = ReadWholeFile(entry.path().string());
    ASSERT_TRUE(bytes.ok());
    StatusOr<MemorySnapshot> s = ParseMemorySnapshot(*bytes, entry.path().string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    for (int32_t device : s->Devices()) {
      int64_t largest_inactive = 0;
      for (const MemorySegment& seg : s->segments) {
        if (seg.device != device || seg.pool == SegmentPool::kSmall) continue;
        for (uint32_t i = seg.first_block; i < seg.first_block + seg.block_count; ++i) {
          if (s->blocks[i].state == BlockState::kInactive) {
            largest_inactive = std::max(largest_inactive, s->blocks[i].size);
          }
        }
      }
      const FreeBlocksAt end = ReplayFreeBlocks(*s, device, s->trace.size(), 64 * kMiB, kNoValue);
      ASSERT_TRUE(end.replayed) << entry.path() << ": " << end.disagreement;
      EXPECT_EQ(end.largest_free_block, largest_inactive) << entry.path();
      if (s->trace.empty()) continue;
      const FreeBlocksAt start = ReplayFreeBlocks(*s, device, 0, 64 * kMiB, kNoValue);
      EXPECT_TRUE(start.replayed) << entry.path() << ": " << start.disagreement;
      EXPECT_GT(start.entries_undone, 0u);
      ++traced;
    }
  }
  EXPECT_GE(traced, 5u);
}

// Mutated traces (entries dropped, repeated, moved by an address or size step, given another
// action or device) over the OOM fixtures: the replay either names a disagreement or keeps its
// bounds in order; it never reads past its maps. Short in ctest; GPUWHY_FUZZ_SECONDS=N for long.
TEST(MemoryOomReplayTest, MutatedTracesReplayWithinTheirBoundsOrSayWhereTheyDisagree) {
  std::vector<MemorySnapshot> seeds;
  for (const char* name : {"oom_fragmented.pickle", "oom_full.pickle"}) {
    StatusOr<std::string> bytes =
        ReadWholeFile(std::string(GPUWHY_TEST_DATA) + "/memory_snapshots/" + name);
    ASSERT_TRUE(bytes.ok()) << name;
    StatusOr<MemorySnapshot> s = ParseMemorySnapshot(*bytes, name);
    ASSERT_TRUE(s.ok()) << s.status().message();
    seeds.push_back(std::move(*s));
  }
  std::mt19937_64 rng(0x6f6f6d);
  testing::FuzzBudget budget(3000);
  int64_t replayed = 0;
  while (budget.Next()) {
    MemorySnapshot& s = seeds[testing::Pick(rng, seeds.size())];
    const std::vector<MemoryTraceEntry> kept = s.trace;  // a snapshot is not copyable
    for (int edits = 1 + static_cast<int>(testing::Pick(rng, 4)); edits > 0; --edits) {
      if (s.trace.empty()) break;
      const size_t i = testing::Pick(rng, s.trace.size());
      MemoryTraceEntry& e = s.trace[i];
      switch (testing::Pick(rng, 6)) {
        case 0: s.trace.erase(s.trace.begin() + static_cast<ptrdiff_t>(i)); break;
        case 1: s.trace.insert(s.trace.begin() + static_cast<ptrdiff_t>(i), e); break;
        case 2: e.address += (static_cast<int64_t>(testing::Pick(rng, 5)) - 2) * 16 * kMiB; break;
        case 3: e.size = static_cast<int64_t>(testing::Pick(rng, 2048)) * kMiB - 1; break;
        case 4: e.action = static_cast<MemoryAction>(testing::Pick(rng, kMemoryActionCount)); break;
        default: e.device = static_cast<int32_t>(testing::Pick(rng, 2)); break;
      }
    }
    const size_t index = testing::Pick(rng, s.trace.size() + 1);
    const int64_t request = static_cast<int64_t>(testing::Pick(rng, 512)) * kMiB + 512;
    const FreeBlocksAt at = ReplayFreeBlocks(s, 0, index, request, 0);
    s.trace = kept;
    if (!at.replayed) {
      ASSERT_FALSE(at.disagreement.empty());
      continue;
    }
    ++replayed;
    ASSERT_LE(at.largest_free_block_min, at.largest_free_block);
    ASSERT_LE(at.largest_free_block, at.free_bytes);
    ASSERT_LE(at.free_bytes_min, at.free_bytes);
    ASSERT_LE(at.free_bytes + at.live, at.reserved) << "mutant " << budget.runs();
  }
  EXPECT_GT(replayed, 0);
}

}  // namespace memory_oom_replay_test
}  // namespace gpuwhy
