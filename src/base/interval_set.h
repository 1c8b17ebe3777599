// Sets of half-open [start, end) nanosecond intervals: union, intersection, subtraction,
// all as linear sweeps over sorted, disjoint intervals. Each set keeps the running total of
// its lengths, so the covered length inside any window is two binary searches.
#pragma once

#include <vector>

#include "base/checked_math.h"
#include "base/time.h"

namespace gpuwhy {

struct Interval {
  TimeNs start = 0;
  TimeNs end = 0;
  // Saturating: an interval from an input may span more than int64 holds.
  DurationNs length() const { return SaturatingSub(end, start); }
  bool operator==(const Interval&) const = default;
};

class IntervalSet {
 public:
  IntervalSet() = default;
  // Builds the union of arbitrary (unsorted, overlapping) intervals; empty ones are dropped.
  static IntervalSet FromUnsorted(std::vector<Interval> intervals);

  // Builds a set from intervals given in start order (overlapping, touching or empty ones
  // allowed), merging them as they come: memory for the merged set only, where collecting
  // them for FromUnsorted holds one entry per input (millions of nested CPU slices).
  class SortedBuilder {
   public:
    // Start order is the caller's promise; an interval before the previous one's start
    // costs the memory and the sort of FromUnsorted, never a wrong set.
    void Add(Interval interval);
    IntervalSet Build() &&;

   private:
    std::vector<Interval> merged_;  // sorted and disjoint while !unsorted_
    bool unsorted_ = false;
  };

  const std::vector<Interval>& intervals() const { return intervals_; }
  bool empty() const { return intervals_.empty(); }
  DurationNs TotalLength() const { return covered_before_.empty() ? 0 : covered_before_.back(); }

  IntervalSet Union(const IntervalSet& other) const;
  IntervalSet Intersect(const IntervalSet& other) const;
  IntervalSet Subtract(const IntervalSet& other) const;
  // Keeps only the parts inside [window.start, window.end), in O(log n + k).
  IntervalSet Clip(Interval window) const;
  // The gaps between members inside |window|.
  IntervalSet Complement(Interval window) const;
  // Total covered length inside |window|, in O(log n).
  DurationNs CoveredLength(Interval window) const;

 private:
  // Every producer ends here: fills covered_before_ from intervals_.
  void Seal();

  std::vector<Interval> intervals_;  // sorted, disjoint, non-empty
  // covered_before_[i]: total length of intervals_[0, i); size n + 1, empty when n is 0.
  std::vector<DurationNs> covered_before_;
};

}  // namespace gpuwhy
