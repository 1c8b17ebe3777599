#include "base/interval_set.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace {

using V = std::vector<Interval>;

TEST(IntervalSetTest, UnionMergesOverlapsAndTouching) {
  auto set = IntervalSet::FromUnsorted({{10, 20}, {0, 5}, {15, 30}, {30, 35}, {40, 40}});
  EXPECT_EQ(set.intervals(), (V{{0, 5}, {10, 35}}));
  EXPECT_EQ(set.TotalLength(), 30);
}

TEST(IntervalSetTest, IntersectSubtractComplement) {
  auto a = IntervalSet::FromUnsorted({{0, 10}, {20, 30}});
  auto b = IntervalSet::FromUnsorted({{5, 25}});
  EXPECT_EQ(a.Intersect(b).intervals(), (V{{5, 10}, {20, 25}}));
  EXPECT_EQ(a.Subtract(b).intervals(), (V{{0, 5}, {25, 30}}));
  EXPECT_EQ(b.Subtract(a).intervals(), (V{{10, 20}}));
  EXPECT_EQ(a.Complement({-5, 35}).intervals(), (V{{-5, 0}, {10, 20}, {30, 35}}));
  EXPECT_EQ(a.Union(b).intervals(), (V{{0, 30}}));
  EXPECT_EQ(a.Clip({8, 22}).intervals(), (V{{8, 10}, {20, 22}}));
}

TEST(IntervalSetTest, SubtractManyHoles) {
  auto a = IntervalSet::FromUnsorted({{0, 100}});
  auto holes = IntervalSet::FromUnsorted({{10, 20}, {30, 40}, {90, 120}});
  EXPECT_EQ(a.Subtract(holes).intervals(), (V{{0, 10}, {20, 30}, {40, 90}}));
}

TEST(IntervalSetTest, CoveredLength) {
  auto a = IntervalSet::FromUnsorted({{0, 10}, {20, 30}, {40, 50}});
  EXPECT_EQ(a.CoveredLength({5, 45}), 5 + 10 + 5);
  EXPECT_EQ(a.CoveredLength({10, 20}), 0);
  EXPECT_EQ(a.CoveredLength({-100, 100}), 30);
}

}  // namespace
}  // namespace gpuwhy
