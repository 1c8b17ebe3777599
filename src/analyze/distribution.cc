#include "analyze/distribution.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace gpuwhy {
namespace {

// A double's bits as an unsigned key in the same order (negatives flipped whole, positives
// get the sign bit), -0 as +0 and back: the order std::sort gives, as a total order.
uint64_t SortKey(double v) {
  uint64_t bits = std::bit_cast<uint64_t>(v + 0.0);
  return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}
double FromSortKey(uint64_t key) {
  return std::bit_cast<double>((key >> 63) != 0 ? key & ~(uint64_t{1} << 63) : ~key);
}

// Least-significant-digit radix sort, 16 bits a pass, skipping the digits every key shares
// (durations leave the high ones alike): the samples here run to millions (one per launch),
// where a comparison sort was the larger part of the launch analysis. Same result as
// std::sort for every value but NaN (which a summary does not hold).
void SortValues(std::vector<double>& values) {
  constexpr size_t kSmall = 1 << 12;
  if (values.size() < kSmall) {
    std::sort(values.begin(), values.end());
    return;
  }
  std::vector<uint64_t> keys(values.size());
  std::vector<uint64_t> spare(values.size());
  for (size_t i = 0; i < values.size(); ++i) keys[i] = SortKey(values[i]);
  std::vector<size_t> count(1 << 16);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t k : keys) ++count[(k >> shift) & 0xFFFF];
    if (count[(keys[0] >> shift) & 0xFFFF] == keys.size()) continue;  // one digit: in order
    size_t total = 0;
    for (size_t& c : count) total += std::exchange(c, total);
    for (uint64_t k : keys) spare[count[(k >> shift) & 0xFFFF]++] = k;
    keys.swap(spare);
  }
  for (size_t i = 0; i < values.size(); ++i) values[i] = FromSortKey(keys[i]);
}

}  // namespace

double SortedQuantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

DistributionSummary Summarize(std::vector<double>& values) {
  DistributionSummary s;
  if (values.empty()) return s;
  SortValues(values);
  s.count = static_cast<int64_t>(values.size());
  for (double v : values) s.sum += v;
  s.mean = s.sum / static_cast<double>(s.count);
  if (s.count > 1) {
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(sq / static_cast<double>(s.count - 1));
  }
  s.min = values.front();
  s.max = values.back();
  s.p25 = SortedQuantile(values, 0.25);
  s.median = SortedQuantile(values, 0.5);
  s.p75 = SortedQuantile(values, 0.75);
  s.p95 = SortedQuantile(values, 0.95);
  return s;
}

}  // namespace gpuwhy
