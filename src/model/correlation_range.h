// One pass over a correlation column: what both correlation indexes (Trace's GPU-op pairs and
// the LaunchIndex) decide their layout from.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "model/compact_column.h"
#include "model/gpu_op_types.h"

namespace gpuwhy {

// Of the rows |keep| accepts that carry an id: how many, whether their ids ascend in row
// order, and the smallest and largest.
struct CorrelationRange {
  size_t kept = 0;
  bool sorted = true;
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  // Ids from lo to hi; only meaningful when kept > 0.
  uint64_t span() const { return static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1; }
};

template <typename Keep>
CorrelationRange ScanCorrelations(const IntColumn& correlation, Keep keep) {
  CorrelationRange r;
  int64_t last = r.lo;
  for (size_t i = 0; i < correlation.size(); ++i) {
    int64_t c = correlation[i];
    if (c == kNoValue || !keep(i)) continue;
    r.sorted &= r.kept == 0 || c >= last;
    last = c;
    r.lo = std::min(r.lo, c);
    r.hi = std::max(r.hi, c);
    ++r.kept;
  }
  return r;
}

}  // namespace gpuwhy
