// Exact order statistics of a sample: what the kernel table and HTA's idle_interval_stats
// report (pandas describe(): linear-interpolated quantiles, sample standard deviation).
#pragma once

#include <cstdint>
#include <vector>

#include "base/time.h"

namespace gpuwhy {

struct DistributionSummary {
  int64_t count = 0;
  double sum = 0;
  double mean = 0;
  double std = 0;  // sample (n − 1) standard deviation; 0 for fewer than two values
  double min = 0;
  double p25 = 0;
  double median = 0;
  double p75 = 0;
  double p95 = 0;
  double max = 0;
};

// Linear interpolation between closest ranks (numpy/pandas default) on sorted |values|.
double SortedQuantile(const std::vector<double>& sorted, double q);

// Sorts |values| in place and summarizes them.
DistributionSummary Summarize(std::vector<double>& values);

}  // namespace gpuwhy
