#include "base/interval_set.h"

#include <gtest/gtest.h>

#include <random>

namespace gpuwhy {
namespace interval_set_test {

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
  EXPECT_EQ(a.CoveredLength({22, 28}), 6);  // one member sticks out on both sides
  EXPECT_EQ(a.CoveredLength({30, 20}), 0);  // an inverted window covers nothing
  EXPECT_EQ(IntervalSet().CoveredLength({0, 100}), 0);
}

// The running totals behind CoveredLength and TotalLength, against a member-by-member count
// (Clip keeps the parts inside the window; summed one by one here) on every producer.
DurationNs CountInside(const IntervalSet& set, Interval w) {
  DurationNs total = 0;
  for (const Interval& i : set.intervals()) {
    total += std::max<DurationNs>(0, std::min(i.end, w.end) - std::max(i.start, w.start));
  }
  return total;
}

TEST(IntervalSetTest, WindowQueriesMatchAMemberByMemberCount) {
  std::mt19937_64 rng(7);
  auto random_set = [&rng](int n) {
    V v;
    for (int i = 0; i < n; ++i) {
      TimeNs start = static_cast<TimeNs>(rng() % 10'000);
      v.push_back({start, start + static_cast<TimeNs>(rng() % 60)});
    }
    return IntervalSet::FromUnsorted(v);
  };
  for (int round = 0; round < 50; ++round) {
    IntervalSet a = random_set(200);
    IntervalSet b = random_set(150);
    Interval clip{static_cast<TimeNs>(rng() % 5'000), static_cast<TimeNs>(5'000 + rng() % 5'000)};
    for (const IntervalSet& set :
         {a, a.Union(b), a.Intersect(b), a.Subtract(b), a.Clip(clip), a.Complement(clip)}) {
      DurationNs total = 0;
      for (const Interval& i : set.intervals()) total += i.length();
      ASSERT_EQ(set.TotalLength(), total);
      for (int q = 0; q < 40; ++q) {
        TimeNs s = static_cast<TimeNs>(rng() % 11'000) - 500;
        Interval w{s, s + static_cast<TimeNs>(rng() % 3'000)};
        ASSERT_EQ(set.CoveredLength(w), CountInside(set, w)) << w.start << " " << w.end;
      }
    }
  }
}

}  // namespace interval_set_test
}  // namespace gpuwhy
