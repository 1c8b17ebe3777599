#include "base/interval_set.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// The union, point by point, of arbitrary intervals on [0, 2'000): the reference every
// producer is checked against below.
V ReferenceUnion(const V& all) {
  std::vector<bool> covered(2'000, false);
  for (const Interval& i : all)
    for (TimeNs t = i.start; t < i.end; ++t) covered[static_cast<size_t>(t)] = true;
  V out;
  for (TimeNs t = 0; t < 2'000; ++t) {
    if (!covered[static_cast<size_t>(t)]) continue;
    if (!out.empty() && out.back().end == t) {
      out.back().end = t + 1;
    } else {
      out.push_back({t, t + 1});
    }
  }
  return out;
}

// Sorted runs of nested, touching and empty intervals, as a thread's CPU slices come, several
// runs one after another (several threads): FromUnsorted coalesces each run before its sort.
V RandomRuns(std::mt19937_64& rng) {
  V v;
  const int runs = 1 + static_cast<int>(rng() % 4);
  for (int r = 0; r < runs; ++r) {
    TimeNs start = static_cast<TimeNs>(rng() % 200);
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n && start < 1'900; ++i) {
      const TimeNs length = static_cast<TimeNs>(rng() % 40);  // 0: an empty one
      v.push_back({start, std::min<TimeNs>(start + length, 1'999)});
      start += static_cast<TimeNs>(rng() % 30);  // 0: the same start (parent, then child)
    }
  }
  return v;
}

TEST(IntervalSetTest, FromUnsortedMatchesThePointwiseUnionOnRuns) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    V v = RandomRuns(rng);
    if (round % 3 == 0) std::shuffle(v.begin(), v.end(), rng);
    const IntervalSet set = IntervalSet::FromUnsorted(v);
    ASSERT_EQ(set.intervals(), ReferenceUnion(v)) << "round " << round;
    DurationNs total = 0;
    for (const Interval& i : set.intervals()) total += i.length();
    ASSERT_EQ(set.TotalLength(), total);
  }
}

TEST(IntervalSetTest, CoalescingKeepsIntervalsThatOnlyMeetBackwards) {
  // Out of order, the later one reaches back over the one before it: merged, not dropped.
  auto set = IntervalSet::FromUnsorted({{50, 60}, {10, 55}, {0, 5}, {5, 8}, {100, 90}});
  EXPECT_EQ(set.intervals(), (V{{0, 8}, {10, 60}}));
  EXPECT_EQ(set.TotalLength(), 58);
}

TEST(IntervalSetTest, SortedBuilderMergesAsItGoes) {
  IntervalSet::SortedBuilder b;
  for (Interval i : V{{0, 10}, {0, 4}, {2, 3}, {10, 12}, {15, 15}, {20, 30}, {21, 25}}) b.Add(i);
  IntervalSet set = std::move(b).Build();
  EXPECT_EQ(set.intervals(), (V{{0, 12}, {20, 30}}));
  EXPECT_EQ(set.TotalLength(), 22);
  EXPECT_EQ(set.CoveredLength({5, 25}), 7 + 5);
  EXPECT_TRUE(IntervalSet::SortedBuilder().Build().empty());
}

TEST(IntervalSetTest, SortedBuilderOutOfOrderStillBuildsTheUnion) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 100; ++round) {
    V v = RandomRuns(rng);
    IntervalSet::SortedBuilder b;
    for (const Interval& i : v) b.Add(i);
    ASSERT_EQ(std::move(b).Build().intervals(), ReferenceUnion(v)) << "round " << round;
  }
}

TEST(IntervalSetTest, UnionMatchesThePointwiseUnion) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    V x = RandomRuns(rng);
    V y = RandomRuns(rng);
    IntervalSet u = IntervalSet::FromUnsorted(x).Union(IntervalSet::FromUnsorted(y));
    V both = x;
    both.insert(both.end(), y.begin(), y.end());
    ASSERT_EQ(u.intervals(), ReferenceUnion(both)) << "round " << round;
    ASSERT_EQ(u.TotalLength(), IntervalSet::FromUnsorted(both).TotalLength());
  }
  EXPECT_EQ(IntervalSet().Union(IntervalSet::FromUnsorted({{1, 2}})).intervals(), (V{{1, 2}}));
}

}  // namespace interval_set_test
}  // namespace gpuwhy
