// torch.cuda.memory_summary() tables: both layouts, alone, inside Markdown and behind log
// prefixes; numbers checked against the real tables in ../shared/data/logs/memory_summary.
#include "ingest/memory/memory_summary_parser.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpuwhy {
namespace memory_summary_parser_test {

namespace fs = std::filesystem;
const fs::path kSummaries = fs::path(GPUWHY_SHARED_DATA) / "logs" / "memory_summary";
constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;
constexpr size_t kAll = 0;
constexpr size_t kLarge = 1;
constexpr size_t kSmall = 2;

TEST(MemorySummaryParserTest, ReadsATableBehindLogPrefixes) {
  const std::string log =
      "step 100 loss 2.1\n"
      "[rank1]: |                  PyTorch CUDA memory summary, device ID 1                 |\n"
      "[rank1]: |            CUDA OOMs: 2            |        cudaMalloc retries: 5         |\n"
      "[rank1]: | Allocated memory      |   10 GiB   |   12 GiB   |  100 GiB   |   90 GiB   |\n"
      "[rank1]: |       from large pool |    9 GiB   |   11 GiB   |   99 GiB   |   90 GiB   |\n"
      "[rank1]: | GPU reserved memory   |   14 GiB   |   14 GiB   |   14 GiB   |    0 B     |\n"
      "step 101 loss 2.0\n";
  StatusOr<MemorySnapshot> s = ParseMemorySummaryText(log, "train.log");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->stats.size(), 1u);
  const AllocatorStats& st = s->stats[0];
  EXPECT_EQ(st.device, 1);
  EXPECT_EQ(st.num_ooms, 2);
  EXPECT_EQ(st.num_alloc_retries, 5);
  EXPECT_EQ(st.allocated_bytes[kAll].peak, 12 * kGiB);
  EXPECT_EQ(st.allocated_bytes[kLarge].current, 9 * kGiB);
  EXPECT_EQ(st.reserved_bytes[kAll].freed, 0);
  EXPECT_EQ(st.reserved_bytes[kSmall].current, kNoValue);  // not printed
  EXPECT_TRUE(s->segments.empty());
  EXPECT_EQ(s->source, "torch.cuda.memory_summary");
}

// Counts past 750,000 are printed in thousands ("12345 K"); a sign, a trailing letter or a
// value past int64 is no number: that cell stays unread (kNoValue), never negative.
TEST(MemorySummaryParserTest, CountPrefixesAndCellsThatAreNoNumbers) {
  const std::string table =
      "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
      "| Allocations           |     1024   |  12345 K   |    3 M     |   -5       |\n"
      "| GPU reserved memory   |   12x GiB  | 9999999999999 TiB |  -1 GiB  |    0 B     |\n";
  StatusOr<MemorySnapshot> s = ParseMemorySummaryText(table, "t.txt");
  ASSERT_TRUE(s.ok()) << s.status().message();
  const AllocatorStats& st = s->stats.at(0);
  EXPECT_EQ(st.allocations[kAll].current, 1024);
  EXPECT_EQ(st.allocations[kAll].peak, 12345000);
  EXPECT_EQ(st.allocations[kAll].allocated, 3000000);
  EXPECT_EQ(st.allocations[kAll].freed, kNoValue);
  EXPECT_EQ(st.reserved_bytes[kAll].current, kNoValue);
  EXPECT_EQ(st.reserved_bytes[kAll].peak, kNoValue);
  EXPECT_EQ(st.reserved_bytes[kAll].allocated, kNoValue);
  EXPECT_EQ(st.reserved_bytes[kAll].freed, 0);
}

TEST(MemorySummaryParserTest, TextWithoutATableIsNamed) {
  StatusOr<MemorySnapshot> s = ParseMemorySummaryText("no table here\n", "x.log");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "x.log: no torch.cuda.memory_summary() table ('PyTorch CUDA memory summary, device "
            "ID'), no torch.cuda.memory_stats() dict (at least 3 of its keys) and no CUDA "
            "out-of-memory message ('out of memory. Tried to allocate ')");
}

TEST(MemorySummaryParserTest, RealTablesInBothLayouts) {
  if (!fs::exists(kSummaries)) GTEST_SKIP() << "no " << kSummaries << " (shared data absent)";
  // Before 2.1 (KB/MB/GB), a long training run.
  StatusOr<MemorySnapshot> run = ImportMemorySummary(
      (kSummaries / "index30916283401_training_run_memory_summary.txt").string());
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->stats.size(), 1u);
  EXPECT_TRUE(run->problems.empty()) << run->problems.Describe();
  const AllocatorStats& a = run->stats[0];
  EXPECT_EQ(a.num_ooms, 0);
  EXPECT_EQ(a.num_alloc_retries, 0);
  EXPECT_EQ(a.allocated_bytes[kAll].current, 146836 * kKiB);
  EXPECT_EQ(a.allocated_bytes[kAll].peak, 4261 * kMiB);
  EXPECT_EQ(a.allocated_bytes[kAll].allocated, 847 * kGiB);
  EXPECT_EQ(a.reserved_bytes[kAll].current, 5176 * kMiB);
  EXPECT_EQ(a.non_releasable_bytes[kAll].current, 619115 * kKiB);
  EXPECT_EQ(a.segments[kSmall].current, 26);
  EXPECT_EQ(a.non_releasable_allocations[kLarge].allocated, 22126);
  // After empty_cache, one cudaMalloc retry (an excerpt cut after the reserved rows).
  StatusOr<MemorySnapshot> falkon = ImportMemorySummary(
      (kSummaries / "falkon_issue37_memory_summary_after_empty_cache_excerpt.txt").string());
  ASSERT_TRUE(falkon.ok()) << falkon.status().message();
  ASSERT_EQ(falkon->stats.size(), 1u);
  EXPECT_EQ(falkon->stats[0].num_alloc_retries, 1);
  EXPECT_EQ(falkon->stats[0].allocated_bytes[kAll].current, 0);
  EXPECT_EQ(falkon->stats[0].allocated_bytes[kAll].peak, 24124 * kMiB);
  EXPECT_EQ(falkon->stats[0].reserved_bytes[kAll].peak, 25950 * kMiB);
  // 2.1+ (KiB/MiB, Requested memory and Oversize rows) inside a README.
  StatusOr<MemorySnapshot> readme =
      ImportMemorySummary((kSummaries / "zerollama_openbmb_README_memory_summary.md").string());
  ASSERT_TRUE(readme.ok()) << readme.status().message();
  ASSERT_EQ(readme->stats.size(), 1u);
  EXPECT_TRUE(readme->problems.empty()) << readme->problems.Describe();
  const AllocatorStats& z = readme->stats[0];
  EXPECT_EQ(z.requested_bytes[kAll].current, 5434 * kMiB);
  EXPECT_EQ(z.reserved_bytes[kAll].freed, 190464 * kKiB);
  EXPECT_EQ(z.allocations[kAll].allocated, 487593);
}

}  // namespace memory_summary_parser_test
}  // namespace gpuwhy
