#include "model/launch_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace gpuwhy {
namespace {

IntColumn Column(const std::vector<int64_t>& values) {
  IntColumn c;
  for (int64_t v : values) c.push_back(v);
  return c;
}

// What the index must answer: the first row (in row order) of each id, by brute force.
std::map<int64_t, uint32_t> FirstRows(const IntColumn& c, const std::vector<bool>& keep) {
  std::map<int64_t, uint32_t> first;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] != kNoValue && keep[i]) first.try_emplace(c[i], static_cast<uint32_t>(i));
  }
  return first;
}

void ExpectMatches(const IntColumn& c, const std::vector<bool>& keep, const LaunchIndex& index) {
  std::map<int64_t, uint32_t> first = FirstRows(c, keep);
  size_t kept = 0;
  for (size_t i = 0; i < c.size(); ++i) kept += c[i] != kNoValue && keep[i];
  EXPECT_EQ(index.size(), first.size());
  EXPECT_EQ(index.duplicates(), static_cast<int64_t>(kept - first.size()));
  std::vector<std::pair<int64_t, uint32_t>> walked;
  index.ForEach(c, [&](int64_t id, CpuSliceId row) { walked.emplace_back(id, row.value); });
  std::vector<std::pair<int64_t, uint32_t>> expected(first.begin(), first.end());
  EXPECT_EQ(walked, expected);
  for (const auto& [id, row] : first) {
    ASSERT_TRUE(index.Find(c, id).valid()) << id;
    EXPECT_EQ(index.Find(c, id).value, row) << id;
  }
  // Ids around and between the indexed ones, and kNoValue, find nothing.
  for (const auto& [id, row] : first) {
    for (int64_t probe : {id - 1, id + 1}) {
      if (!first.count(probe)) {
        EXPECT_FALSE(index.Find(c, probe).valid()) << probe;
      }
    }
  }
  EXPECT_FALSE(index.Find(c, kNoValue).valid());
}

TEST(LaunchIndexTest, DenseIdsGetADirectTableOfFourBytesPerId) {
  IntColumn c = Column({10, 11, kNoValue, 13, 12, 11, 14});
  std::vector<bool> keep(c.size(), true);
  keep[6] = false;  // id 14 belongs to a row that is not a launch
  LaunchIndex index;
  index.Build(c, [&](size_t i) { return keep[i]; });
  EXPECT_TRUE(index.dense());
  EXPECT_EQ(index.Find(c, 11).value, 1u);  // the first of the two rows with id 11
  EXPECT_EQ(index.duplicates(), 1);
  EXPECT_FALSE(index.Find(c, 14).valid());
  EXPECT_FALSE(index.Find(c, 9).valid());
  ExpectMatches(c, keep, index);
}

TEST(LaunchIndexTest, SparseIdsAreSortedRowsSearchedThroughTheColumn) {
  const int64_t big = int64_t{1} << 40;  // widens the column to 64 bits as well
  IntColumn c = Column({big, 5, 900000, 5, big + 7, -3, 70000000});
  std::vector<bool> keep(c.size(), true);
  LaunchIndex index;
  index.Build(c, [&](size_t i) { return keep[i]; });
  EXPECT_FALSE(index.dense());
  EXPECT_EQ(index.Find(c, 5).value, 1u);
  EXPECT_EQ(index.Find(c, -3).value, 5u);
  EXPECT_EQ(index.Find(c, big + 7).value, 4u);
  EXPECT_EQ(index.bytes(), c.size() * sizeof(uint32_t));
  ExpectMatches(c, keep, index);
}

TEST(LaunchIndexTest, NothingToIndex) {
  IntColumn c = Column({kNoValue, kNoValue});
  LaunchIndex index;
  index.Build(c, [](size_t) { return true; });
  EXPECT_EQ(index.size(), 0u);
  EXPECT_FALSE(index.Find(c, 0).valid());
  int calls = 0;
  index.ForEach(c, [&](int64_t, CpuSliceId) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(LaunchIndexTest, AgreesWithBruteForceOnRandomIds) {
  std::mt19937_64 random(20);
  for (int round = 0; round < 60; ++round) {
    // Dense runs with repeats, shuffled neighbours, and now and then a wild id.
    std::vector<int64_t> values;
    int64_t next = static_cast<int64_t>(random() % 1000);
    size_t n = 1 + random() % 3000;
    for (size_t i = 0; i < n; ++i) {
      uint64_t r = random() % 100;
      if (r < 5)
        values.push_back(kNoValue);
      else if (r < 10 && !values.empty())
        values.push_back(values[random() % values.size()]);
      else if (r < 10 + static_cast<uint64_t>(round % 3))
        values.push_back(static_cast<int64_t>(random() % 100000000));
      else
        values.push_back(next += 1 + static_cast<int64_t>(random() % 3));
      if (r % 7 == 0 && values.size() > 1) std::swap(values.back(), values[values.size() - 2]);
    }
    IntColumn c = Column(values);
    std::vector<bool> keep(n);
    for (size_t i = 0; i < n; ++i) keep[i] = random() % 4 != 0;
    LaunchIndex index;
    index.Build(c, [&](size_t i) { return keep[i]; });
    ExpectMatches(c, keep, index);
  }
}

// Issue 37: ids at both ends of int64 span 2^64 ids; the span once wrapped to 0 and the dense
// table of 0 rows was written past. The index stays bounded by the rows (sparse here).
TEST(LaunchIndexTest, IdsAcrossTheWholeInt64RangeAreSparseAndFound) {
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();
  for (const std::vector<int64_t>& ids :
       {std::vector<int64_t>{kLow, kHigh}, std::vector<int64_t>{kHigh, kLow},
        std::vector<int64_t>{kHigh, 3, kLow, kHigh}, std::vector<int64_t>{kLow + 1, kHigh - 1}}) {
    IntColumn c = Column(ids);
    LaunchIndex index;
    index.Build(c, [](size_t) { return true; });
    EXPECT_FALSE(index.dense());
    EXPECT_LE(index.bytes(), ids.size() * sizeof(uint32_t));
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_TRUE(index.Find(c, ids[i]).valid()) << ids[i];
    EXPECT_FALSE(index.Find(c, 0).valid());
    std::vector<int64_t> walked;
    index.ForEach(c, [&](int64_t id, CpuSliceId) { walked.push_back(id); });
    EXPECT_TRUE(std::is_sorted(walked.begin(), walked.end()));
  }
}

// A huge gap between two small groups of ids is sparse too: the table never follows the ids.
TEST(LaunchIndexTest, AWideSpanOfFewIdsIsNotADenseTable) {
  IntColumn c = Column({1, 2, int64_t{1} << 40});
  LaunchIndex index;
  index.Build(c, [](size_t) { return true; });
  EXPECT_FALSE(index.dense());
  EXPECT_EQ(index.Find(c, int64_t{1} << 40).value, 2u);
}

}  // namespace
}  // namespace gpuwhy
