// export_memory_timeline raw files: hand-written rows with known values, every bad-row kind,
// truncation at every byte, hostile nesting, and the real HTA file of ../shared/data (its counts
// checked independently by tests/memory_timeline_check.py).
#include "ingest/memory/memory_timeline_importer.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpuwhy {
namespace memory_timeline_importer_test {

namespace fs = std::filesystem;

constexpr std::string_view kSmall =
    "[[-1, 1, 4096, 0], [1000, 2, 512, 4],\n [1000, 3, -512, 4], [1000, 3, 512, 5], "
    "[2500, 4, -512, 5], [2600, 2, 64, 7]]";

TEST(MemoryTimelineImporterTest, ReadsRowsIntoColumns) {
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline(kSmall, "t.raw.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->problems.empty()) << t->problems.Describe();
  ASSERT_EQ(t->size(), 6u);
  EXPECT_EQ(t->time[0], kNoValue);  // preexisting: -1 in the file
  EXPECT_EQ(t->action[0], TimelineAction::kPreexisting);
  EXPECT_EQ(t->bytes[0], 4096);
  EXPECT_EQ(t->category[0], MemoryCategory::kParameter);
  EXPECT_EQ(t->time[2], 1000);
  EXPECT_EQ(t->action[2], TimelineAction::kIncrementVersion);
  EXPECT_EQ(t->bytes[2], -512);
  EXPECT_EQ(t->category[3], MemoryCategory::kGradient);
  EXPECT_EQ(t->action[4], TimelineAction::kDestroy);
  EXPECT_EQ(t->category[5], MemoryCategory::kUnknown);
  EXPECT_EQ(t->file_bytes, kSmall.size());
}

TEST(MemoryTimelineImporterTest, BadRowsAreSkippedAndCounted) {
  const std::string text =
      "\xEF\xBB\xBF [[1, 2, 3, 4], [1, 2, 3], [1.5, 2, 3, 4], [\"a\", 2, 3, 4], [1, 9, 3, 4], "
      "[-7, 2, 3, 4], [5, 2, 99999999999999999999, 4], [6, 2, 8, 12], {\"x\": [1]}, 17, "
      "[7, 2, [1, [2]], 4], [8, 4, -8, 6], [], [9 9, 2, 3, 4]]";
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline(text, "bad.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 3u);  // [1,2,3,4], [6,2,8,12] (category unknown), [8,4,-8,6]
  EXPECT_EQ(t->time[1], 6);
  EXPECT_EQ(t->category[1], MemoryCategory::kUnknown);
  EXPECT_EQ(t->bytes[2], -8);
  EXPECT_EQ(t->problems.Get(DataProblem::kMalformedEvent), 10) << t->problems.Describe();
  EXPECT_EQ(t->problems.Get(DataProblem::kBadTimestamp), 1);
  EXPECT_EQ(t->problems.Get(DataProblem::kUnknownCategory), 1);
  EXPECT_EQ(t->problems.Get(DataProblem::kTruncated), 0);
  EXPECT_EQ(t->problems.Details(DataProblem::kMalformedEvent)[0],
            "bad.json: entry 1: 3 values, not 4");
  EXPECT_EQ(t->problems.Detail(DataProblem::kBadTimestamp), "bad.json: entry 5: time -7");
}

TEST(MemoryTimelineImporterTest, NoListIsAnErrorNamingTheByte) {
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline("  {\"traceEvents\": []}", "x.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().substr(0, 37), "x.json: byte 2: not a memory timeline");
}

// A cut file keeps every whole row before the cut and is flagged; nothing past the bytes read.
TEST(MemoryTimelineImporterTest, TruncationAtEveryByteKeepsWholeRows) {
  for (size_t cut = 1; cut < kSmall.size(); ++cut) {
    StatusOr<MemoryTimeline> t = ParseMemoryTimeline(kSmall.substr(0, cut), "cut.json");
    ASSERT_TRUE(t.ok()) << cut;
    EXPECT_EQ(t->problems.Get(DataProblem::kTruncated), 1) << cut;
    EXPECT_LE(t->size(), 6u);
    EXPECT_EQ(t->problems.Get(DataProblem::kMalformedEvent), 0) << cut;
  }
}

TEST(MemoryTimelineImporterTest, DeepNestingAndHugeInputsCostNoStack) {
  const std::string deep =
      "[[1, 2, " + std::string(1 << 20, '[') + std::string(1 << 20, ']') + ", 4], [2, 2, 3, 4]]";
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline(deep, "deep.json");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->size(), 1u);
  EXPECT_EQ(t->problems.Get(DataProblem::kMalformedEvent), 1);
  StatusOr<MemoryTimeline> open = ParseMemoryTimeline("[" + std::string(1 << 20, '['), "o.json");
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->size(), 0u);
  EXPECT_EQ(open->problems.Get(DataProblem::kTruncated), 1);
}

TEST(MemoryTimelineImporterTest, SniffsTheFirstRow) {
  EXPECT_TRUE(LooksLikeMemoryTimeline(" [\n [-1, 1, 37888, 7], [-1"));
  EXPECT_TRUE(LooksLikeMemoryTimeline("[[1696966047096061874,2,512,4]]"));
  EXPECT_FALSE(LooksLikeMemoryTimeline("[{\"ph\": \"X\"}]"));
  EXPECT_FALSE(LooksLikeMemoryTimeline("[[1, 2, 3]]"));
  EXPECT_FALSE(LooksLikeMemoryTimeline("[[1, 2, 3, 4.5]]"));
  EXPECT_FALSE(LooksLikeMemoryTimeline("[]"));
}

// The real file: 16,845 rows (MANIFEST.tsv), 645 preexisting; the category counts are
// tests/memory_timeline_check.py's.
TEST(MemoryTimelineImporterTest, RealHtaTimeline) {
  const fs::path path = fs::path(GPUWHY_SHARED_DATA) / "memory" / "hta_memory_timeline.raw.gz";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path << " (shared data absent)";
  StatusOr<MemoryTimeline> t = ImportMemoryTimeline(path.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->problems.empty()) << t->problems.Describe();
  ASSERT_EQ(t->size(), 16845u);
  EXPECT_EQ(t->file_bytes, 611286u);
  std::array<int64_t, kTimelineActionCount + 1> actions{};
  std::array<int64_t, kMemoryCategoryCount> categories{};
  for (size_t i = 0; i < t->size(); ++i) {
    ++actions[static_cast<size_t>(t->action[i])];
    ++categories[static_cast<size_t>(t->category[i])];
  }
  EXPECT_EQ(actions[1], 645);
  EXPECT_EQ(actions[2], 3345);
  EXPECT_EQ(actions[3], 9510);
  EXPECT_EQ(actions[4], 3345);
  EXPECT_EQ(categories[static_cast<size_t>(MemoryCategory::kActivation)], 2839);
  EXPECT_EQ(categories[static_cast<size_t>(MemoryCategory::kUnknown)], 3907);
  EXPECT_EQ(t->time.back(), 1696966048083248105);
}

}  // namespace memory_timeline_importer_test
}  // namespace gpuwhy
