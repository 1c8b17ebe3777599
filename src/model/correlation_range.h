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
  // How many ids lie from lo to hi, saturating: lo = -2^63 and hi = 2^63 - 1 hold 2^64 ids,
  // which wrapped to 0 and sized a table of no rows that the ids were then written into. Only
  // meaningful when kept > 0.
  uint64_t span() const {
    const uint64_t gap = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    return gap == std::numeric_limits<uint64_t>::max() ? gap : gap + 1;
  }
  // The slot of id |c| (lo <= c <= hi) in a table indexed from lo: no signed overflow.
  uint64_t Offset(int64_t c) const { return static_cast<uint64_t>(c) - static_cast<uint64_t>(lo); }
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
