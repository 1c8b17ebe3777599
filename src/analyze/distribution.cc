#include "analyze/distribution.h"

#include <algorithm>
#include <cmath>

namespace gpuwhy {

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
  std::sort(values.begin(), values.end());
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
