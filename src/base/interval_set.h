// Sets of half-open [start, end) nanosecond intervals: union, intersection, subtraction,
// all as linear sweeps over sorted, disjoint intervals.
#pragma once

#include <vector>

#include "base/time.h"

namespace gpuwhy {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
  DurationNs length() const { return end - start; }
  bool operator==(const Interval&) const = default;
};

class IntervalSet {
 public:
  IntervalSet() = default;
  // Builds the union of arbitrary (unsorted, overlapping) intervals; empty ones are dropped.
  static IntervalSet FromUnsorted(std::vector<Interval> intervals);

  const std::vector<Interval>& intervals() const { return intervals_; }
  bool empty() const { return intervals_.empty(); }
  DurationNs TotalLength() const;

  IntervalSet Union(const IntervalSet& other) const;
  IntervalSet Intersect(const IntervalSet& other) const;
  IntervalSet Subtract(const IntervalSet& other) const;
  // Keeps only the parts inside [window.start, window.end).
  IntervalSet Clip(Interval window) const;
  // The gaps between members inside |window|.
  IntervalSet Complement(Interval window) const;
  // Total covered length inside |window|, in O(log n + k).
  DurationNs CoveredLength(Interval window) const;

 private:
  std::vector<Interval> intervals_;  // sorted, disjoint, non-empty
};

}  // namespace gpuwhy
