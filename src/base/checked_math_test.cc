#include "base/checked_math.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "base/interval_set.h"
#include "base/number_cast.h"

namespace gpuwhy {
namespace checked_math_test {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMathTest, CheckedOpsRefuseWhatLeavesTheRange) {
  EXPECT_EQ(CheckedAdd<int64_t>(2, 3), 5);
  EXPECT_EQ(CheckedAdd<int64_t>(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedAdd<int64_t>(kMin, -1), std::nullopt);
  EXPECT_EQ(CheckedSub<int64_t>(kMin, 1), std::nullopt);
  EXPECT_EQ(CheckedSub<int64_t>(kMax, kMin), std::nullopt);
  EXPECT_EQ(CheckedSub<int64_t>(0, kMin), std::nullopt);
  EXPECT_EQ(CheckedMul<int64_t>(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(CheckedMul<int64_t>(int64_t{1} << 32, int64_t{1} << 31), std::nullopt);
  EXPECT_EQ(CheckedMul<int32_t>(65536, 65536), std::nullopt);
  EXPECT_EQ(CheckedMul<int64_t>(-1, kMin), std::nullopt);
}

TEST(CheckedMathTest, SaturatingOpsStopAtTheEndTheyRanPast) {
  EXPECT_EQ(SaturatingAdd<int64_t>(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd<int64_t>(kMin, -1), kMin);
  EXPECT_EQ(SaturatingSub<int64_t>(kMax, kMin), kMax);
  EXPECT_EQ(SaturatingSub<int64_t>(kMin, kMax), kMin);
  EXPECT_EQ(SaturatingSub<int64_t>(10, 4), 6);
  EXPECT_EQ(SaturatingMul<int64_t>(kMax, 2), kMax);
  EXPECT_EQ(SaturatingMul<int64_t>(kMax, -2), kMin);
  EXPECT_EQ(SaturatingMul<int64_t>(-3, -4), 12);
}

// Issue 37: an interval across most of int64 once printed "span 0.000 ms" (end - start wrapped).
TEST(CheckedMathTest, AnIntervalTooLongForInt64HasTheLongestLength) {
  EXPECT_EQ((Interval{kMin, kMax}).length(), kMax);
  EXPECT_EQ((Interval{-5, 5}).length(), 10);
  IntervalSet set = IntervalSet::FromUnsorted({{kMin, -1}, {1, kMax}});
  EXPECT_EQ(set.TotalLength(), kMax);
  EXPECT_GT(set.CoveredLength({kMin, kMax}), 0);
}

TEST(NumberCastTest, ParsedDoublesBecomeIntegersOnlyInRange) {
  EXPECT_EQ(ToInteger<int32_t>(42.9), 42);
  EXPECT_EQ(ToInteger<int32_t>(-42.9), -42);
  EXPECT_EQ(ToInteger<int32_t>(2147483647.0), 2147483647);
  EXPECT_EQ(ToInteger<int32_t>(2147483648.0), std::nullopt);
  EXPECT_EQ(ToInteger<int64_t>(1.8e19), std::nullopt);  // a node log's value, issue 37
  EXPECT_EQ(ToInteger<int64_t>(-9223372036854775808.0), kMin);
  EXPECT_EQ(ToInteger<int64_t>(9223372036854775808.0), std::nullopt);
  EXPECT_EQ(ToInteger<int64_t>(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
  EXPECT_EQ(ToInteger<int64_t>(std::numeric_limits<double>::infinity()), std::nullopt);
}

}  // namespace checked_math_test
}  // namespace gpuwhy
