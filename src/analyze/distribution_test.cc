// Summarize sorts large samples with a radix sort: the summary must be bit for bit what a
// comparison sort gives (reports are compared byte for byte across builds).
#include "analyze/distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

namespace gpuwhy {
namespace distribution_test {

// The summary as it was computed before the radix sort: std::sort, then the same formulas.
DistributionSummary Reference(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  DistributionSummary s;
  s.count = static_cast<int64_t>(v.size());
  for (double x : v) s.sum += x;
  s.mean = s.sum / static_cast<double>(s.count);
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(s.count - 1));
  s.min = v.front();
  s.max = v.back();
  s.p25 = SortedQuantile(v, 0.25);
  s.median = SortedQuantile(v, 0.5);
  s.p75 = SortedQuantile(v, 0.75);
  s.p95 = SortedQuantile(v, 0.95);
  return s;
}

void ExpectSameBits(const DistributionSummary& a, const DistributionSummary& b) {
  EXPECT_EQ(a.count, b.count);
  for (auto [x, y] : {std::pair{a.sum, b.sum},
                      {a.mean, b.mean},
                      {a.std, b.std},
                      {a.min, b.min},
                      {a.p25, b.p25},
                      {a.median, b.median},
                      {a.p75, b.p75},
                      {a.p95, b.p95},
                      {a.max, b.max}}) {
    EXPECT_EQ(std::bit_cast<uint64_t>(x), std::bit_cast<uint64_t>(y)) << x << " vs " << y;
  }
}

TEST(DistributionTest, LargeSamplesSummarizeAsAComparisonSortDoes) {
  std::mt19937_64 rng(3);
  for (size_t n : {size_t{5000}, size_t{70'000}, size_t{300'000}}) {
    std::vector<double> ns, mixed, fractions;
    for (size_t i = 0; i < n; ++i) {
      ns.push_back(static_cast<double>(rng() % 2'000'000));  // integer ns, many repeats
      mixed.push_back(static_cast<double>(static_cast<int64_t>(rng() % 20'000) - 10'000) / 7.0);
      fractions.push_back(
          std::ldexp(static_cast<double>(rng() % 1000), -static_cast<int>(rng() % 40)));
    }
    for (std::vector<double>* v : {&ns, &mixed, &fractions}) {
      DistributionSummary expected = Reference(*v);
      std::vector<double> copy = *v;
      ExpectSameBits(Summarize(copy), expected);
      EXPECT_TRUE(std::is_sorted(copy.begin(), copy.end()));
    }
  }
}

TEST(DistributionTest, AllEqualAndTinySamples) {
  std::vector<double> same(10'000, 42.5);
  ExpectSameBits(Summarize(same), Reference(same));
  std::vector<double> one = {3};
  DistributionSummary s = Summarize(one);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.std, 0);
}

}  // namespace distribution_test
}  // namespace gpuwhy
