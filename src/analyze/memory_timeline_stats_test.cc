// The memory-timeline replay on a hand-made timeline with a known peak, and on the real HTA file
// against the numbers an independent Python replay of the same file gives
// (tests/memory_timeline_check.py runs that replay in ctest against gpuwhy info --format json).
#include "analyze/memory_timeline_stats.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/memory/memory_timeline_importer.h"
#include "synth/memory_steps.h"

namespace gpuwhy {
namespace memory_timeline_stats_test {

namespace fs = std::filesystem;

size_t Cat(MemoryCategory c) { return static_cast<size_t>(c); }

// 100 B of parameters before profiling; at t=10 a 50 B activation is made and bumped to a
// gradient (one change), t=20 a 30 B temporary: the peak, 180 B, 10 ns after the first row.
// t=50 makes and frees 1000 B at one timestamp: PyTorch's plot never shows it, nor does gpuwhy.
TEST(MemoryTimelineStatsTest, PeakByTimestampWithItsCategories) {
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline(
      "[[-1, 1, 100, 0], [10, 2, 50, 4], [10, 3, -50, 4], [10, 3, 50, 5], [20, 2, 30, 3], "
      "[30, 4, -30, 3], [40, 4, -50, 5], [50, 2, 1000, 7], [50, 4, -1000, 7]]",
      "t.json");
  ASSERT_TRUE(t.ok());
  const MemoryTimelineStats s = AnalyzeMemoryTimeline(*t);
  EXPECT_EQ(s.entries, 9);
  EXPECT_EQ(s.actions[0], 1);
  EXPECT_EQ(s.actions[1], 3);
  EXPECT_EQ(s.actions[2], 2);
  EXPECT_EQ(s.actions[3], 3);
  EXPECT_EQ(s.preexisting_bytes, 100);
  EXPECT_EQ(s.peak_bytes, 180);
  EXPECT_EQ(s.peak_offset, 10);
  EXPECT_EQ(s.peak_by_category[Cat(MemoryCategory::kParameter)], 100);
  EXPECT_EQ(s.peak_by_category[Cat(MemoryCategory::kGradient)], 50);
  EXPECT_EQ(s.peak_by_category[Cat(MemoryCategory::kTemporary)], 30);
  EXPECT_EQ(s.peak_by_category[Cat(MemoryCategory::kActivation)], 0);
  EXPECT_EQ(s.final_bytes, 100);
  EXPECT_EQ(s.first_time, 10);
  EXPECT_EQ(s.last_time, 50);
  EXPECT_DOUBLE_EQ(s.metrics.ValueOr("memory.timeline.peak_bytes", -1), 180);
  EXPECT_NEAR(s.metrics.ValueOr("memory.timeline.peak_parameter_pct", -1), 100.0 * 100 / 180, 1e-9);
  EXPECT_DOUBLE_EQ(s.metrics.ValueOr("memory.timeline.peak_gradient_bytes", -1), 50);
}

TEST(MemoryTimelineStatsTest, EmptyAndHostileSumsStayDefined) {
  MemoryTimeline empty;
  const MemoryTimelineStats e = AnalyzeMemoryTimeline(empty);
  EXPECT_EQ(e.peak_bytes, 0);
  EXPECT_EQ(e.metrics.Find("memory.timeline.span_ms"), nullptr);
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline(
      "[[1, 2, 9223372036854775807, 0], [2, 2, 9223372036854775807, 0]]", "big.json");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(AnalyzeMemoryTimeline(*t).peak_bytes, INT64_MAX);  // saturates, no overflow
}

// 10 steps leaving 300 MiB each (synth/memory_steps.h): every window's trough is higher than the
// last, from 600 + 300 MiB (window 2, after step 1) to 600 + 2400 MiB (window 8, after step 8's
// activation is freed). The same steps freeing what they make leave the troughs at the 600 MiB of
// parameters.
TEST(MemoryTimelineStatsTest, WindowTroughsRiseWithALeakAndStayFlatWithCaching) {
  const MemoryTimelineStats leak = AnalyzeMemoryTimeline(SyntheticStepTimeline(10, 600, 300));
  ASSERT_EQ(leak.window_troughs.size(), 7u);
  EXPECT_EQ(leak.window_troughs.front(), int64_t{900} << 20);
  EXPECT_EQ(leak.window_troughs.back(), int64_t{3000} << 20);
  for (size_t i = 1; i < leak.window_troughs.size(); ++i)
    EXPECT_GT(leak.window_troughs[i], leak.window_troughs[i - 1]) << i;
  const MemoryTimelineStats healthy = AnalyzeMemoryTimeline(SyntheticStepTimeline(10, 600, 0));
  EXPECT_EQ(healthy.window_troughs, std::vector<int64_t>(7, int64_t{600} << 20));
  EXPECT_EQ(healthy.peak_bytes, int64_t{1624} << 20);
}

// Python's replay of the same file (tests/memory_timeline_check.py's): 3,082,832,104 B at
// 98.424324 ms, 84.1% activations.
TEST(MemoryTimelineStatsTest, RealHtaTimelineMatchesPython) {
  const fs::path path = fs::path(GPUWHY_SHARED_DATA) / "memory" / "hta_memory_timeline.raw.gz";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path << " (shared data absent)";
  StatusOr<MemoryTimeline> t = ImportMemoryTimeline(path.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const MemoryTimelineStats s = AnalyzeMemoryTimeline(*t);
  EXPECT_EQ(s.peak_bytes, 3082832104);
  EXPECT_EQ(s.peak_offset, 98424324);
  const std::array<int64_t, kMemoryCategoryCount> expected = {
      102440608, 102228128, 19395584, 0, 2592465920, 67858432, 64225280, 134218152};
  EXPECT_EQ(s.peak_by_category, expected);
  EXPECT_EQ(s.final_bytes, 332060904);
  EXPECT_EQ(s.preexisting_bytes, 332060904);
  EXPECT_NEAR(s.metrics.ValueOr("memory.timeline.peak_activation_pct", -1), 84.09, 0.01);
}

}  // namespace memory_timeline_stats_test
}  // namespace gpuwhy
