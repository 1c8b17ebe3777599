// The windows' levels on hand-made series: the level each window opens at counts, one time's
// changes are one, an empty span gives none, times out of order stay in the window already open;
// troughs count only when every window but the first falls by a quarter of its high.
#include "analyze/window_troughs.h"

#include <gtest/gtest.h>

#include "model/tables.h"

namespace gpuwhy {
namespace window_troughs_test {

std::vector<int64_t> Lows(const std::vector<WindowLevels>& w) {
  std::vector<int64_t> out;
  for (const WindowLevels& l : w) out.push_back(l.low);
  return out;
}

TEST(WindowTroughsTest, EachWindowsLowestAndHighestLevel) {
  // From 10: +5 at 0, -5 and +5 at 10 (one change), -8 at 25, +100 at 30, -100 at 40.
  const std::vector<TimeNs> times = {0, 10, 10, 25, 30, 40};
  const std::vector<int64_t> deltas = {5, -5, 5, -8, 100, -100};
  // Windows of 10 ns: [0,10) opens at 10 and rises to 15; [10,20) stays 15 (10 never shows);
  // [20,30) falls to 7; [30,40] opens at 7 and peaks at 107.
  const std::vector<WindowLevels> w = WindowLevelsOf(times, deltas, 10, 0, 40, 4);
  EXPECT_EQ(Lows(w), (std::vector<int64_t>{10, 15, 7, 7}));
  EXPECT_EQ(w[1].high, 15);
  EXPECT_EQ(w[3].high, 107);
  EXPECT_TRUE(WindowLevelsOf(times, deltas, 10, 5, 5, 4).empty());
  EXPECT_TRUE(WindowLevelsOf(times, deltas, 10, kNoValue, 40, 4).empty());
  EXPECT_TRUE(WindowLevelsOf(times, {deltas.data(), 2}, 10, 0, 40, 4).empty());
  // Window 1 never falls (15 to 15): no troughs; every window falling a quarter: troughs.
  EXPECT_TRUE(CyclingTroughs(w).empty());
  EXPECT_EQ(CyclingTroughs({{1, 9}, {6, 8}, {3, 4}}), (std::vector<int64_t>{6, 3}));
  EXPECT_TRUE(CyclingTroughs({{1, 9}, {7, 8}}).empty());  // 12.5% is no step's churn
}

TEST(WindowTroughsTest, OutOfOrderAndSaturatingNeverBreak) {
  const std::vector<TimeNs> times = {30, 0, 40};
  const std::vector<int64_t> deltas = {INT64_MAX, INT64_MAX, -1};
  const std::vector<WindowLevels> w = WindowLevelsOf(times, deltas, 0, 0, 40, 4);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].low, 0);  // opened at 0, before the first change
  EXPECT_EQ(w[3].low, 0);  // the change at 30 jumps into window 3 at the level before it
  EXPECT_EQ(w[3].high, INT64_MAX);
}

}  // namespace window_troughs_test
}  // namespace gpuwhy
