#include "base/interval_set.h"

#include <algorithm>

namespace gpuwhy {

namespace {

bool ByStart(const Interval& a, const Interval& b) { return a.start < b.start; }

// Merges, in place, each interval into the last one kept when the two overlap or touch: one
// pass that shrinks already-sorted runs of nested or abutting intervals (a thread's CPU
// slices, a stream's kernels) to their union before any sort. Returns how many are kept.
size_t CoalesceNeighbours(std::vector<Interval>& v) {
  size_t kept = 0;
  for (const Interval& i : v) {
    if (i.end <= i.start) continue;  // empty
    if (kept > 0) {
      Interval& last = v[kept - 1];
      if (i.start <= last.end && last.start <= i.end) {
        last.start = std::min(last.start, i.start);
        last.end = std::max(last.end, i.end);
        continue;
      }
    }
    v[kept++] = i;
  }
  return kept;
}

}  // namespace

IntervalSet IntervalSet::FromUnsorted(std::vector<Interval> intervals) {
  // The union does not depend on the order of the intervals, nor on merging some early: the
  // neighbour pass leaves a shorter list with the same union, which the sort (skipped when
  // it is in start order, as most callers' is) and the sorted merge below make canonical.
  intervals.resize(CoalesceNeighbours(intervals));
  if (!std::is_sorted(intervals.begin(), intervals.end(), ByStart)) {
    std::sort(intervals.begin(), intervals.end(), ByStart);
  }
  // Merged in place: the input's storage becomes the set's.
  size_t kept = 0;
  for (const Interval& i : intervals) {
    if (kept > 0 && i.start <= intervals[kept - 1].end) {
      intervals[kept - 1].end = std::max(intervals[kept - 1].end, i.end);
    } else {
      intervals[kept++] = i;
    }
  }
  intervals.resize(kept);
  if (kept < intervals.capacity() / 2) intervals.shrink_to_fit();
  IntervalSet set;
  set.intervals_ = std::move(intervals);
  set.Seal();
  return set;
}

void IntervalSet::SortedBuilder::Add(Interval interval) {
  if (interval.end <= interval.start) return;
  if (!merged_.empty() && !unsorted_) {
    if (interval.start < merged_.back().start) {
      unsorted_ = true;  // a caller's mistake: Build() sorts, nothing is lost
    } else if (interval.start <= merged_.back().end) {
      merged_.back().end = std::max(merged_.back().end, interval.end);
      return;
    }
  }
  merged_.push_back(interval);
}

IntervalSet IntervalSet::SortedBuilder::Build() && {
  if (unsorted_) return FromUnsorted(std::move(merged_));
  if (merged_.size() < merged_.capacity() / 2) merged_.shrink_to_fit();
  IntervalSet set;
  set.intervals_ = std::move(merged_);
  set.Seal();
  return set;
}

void IntervalSet::Seal() {
  covered_before_.clear();
  if (intervals_.empty()) return;
  covered_before_.reserve(intervals_.size() + 1);
  DurationNs total = 0;
  covered_before_.push_back(0);
  for (const Interval& i : intervals_) {
    total = SaturatingAdd(total, i.length());
    covered_before_.push_back(total);
  }
}

IntervalSet IntervalSet::Union(const IntervalSet& other) const {
  // A two-way merge straight into the result: no list of both inputs in between.
  SortedBuilder builder;
  size_t a = 0;
  size_t b = 0;
  while (a < intervals_.size() || b < other.intervals_.size()) {
    const bool take_a = b == other.intervals_.size() ||
                        (a < intervals_.size() && intervals_[a].start <= other.intervals_[b].start);
    builder.Add(take_a ? intervals_[a++] : other.intervals_[b++]);
  }
  return std::move(builder).Build();
}

IntervalSet IntervalSet::Intersect(const IntervalSet& other) const {
  IntervalSet set;
  size_t a = 0;
  size_t b = 0;
  while (a < intervals_.size() && b < other.intervals_.size()) {
    const Interval& x = intervals_[a];
    const Interval& y = other.intervals_[b];
    TimeNs start = std::max(x.start, y.start);
    TimeNs end = std::min(x.end, y.end);
    if (start < end) set.intervals_.push_back({start, end});
    if (x.end < y.end) {
      ++a;
    } else {
      ++b;
    }
  }
  set.Seal();
  return set;
}

IntervalSet IntervalSet::Subtract(const IntervalSet& other) const {
  IntervalSet set;
  size_t b = 0;
  for (Interval x : intervals_) {
    while (b < other.intervals_.size() && other.intervals_[b].end <= x.start) ++b;
    size_t k = b;
    while (k < other.intervals_.size() && other.intervals_[k].start < x.end) {
      const Interval& y = other.intervals_[k];
      if (y.start > x.start) set.intervals_.push_back({x.start, y.start});
      x.start = std::max(x.start, y.end);
      if (x.start >= x.end) break;
      ++k;
    }
    if (x.start < x.end) set.intervals_.push_back(x);
  }
  set.Seal();
  return set;
}

IntervalSet IntervalSet::Clip(Interval window) const {
  IntervalSet set;
  // Only the members from the first that ends after the window's start can reach into it.
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), window.start,
                             [](const Interval& i, TimeNs t) { return i.end <= t; });
  for (; it != intervals_.end() && it->start < window.end; ++it) {
    TimeNs start = std::max(it->start, window.start);
    TimeNs end = std::min(it->end, window.end);
    if (start < end) set.intervals_.push_back({start, end});
  }
  set.Seal();
  return set;
}

IntervalSet IntervalSet::Complement(Interval window) const {
  IntervalSet whole;
  if (window.start < window.end) whole.intervals_.push_back(window);
  whole.Seal();
  return whole.Subtract(*this);
}

DurationNs IntervalSet::CoveredLength(Interval window) const {
  if (window.end <= window.start) return 0;
  // [first, last): the members that reach into the window.
  auto first = std::lower_bound(intervals_.begin(), intervals_.end(), window.start,
                                [](const Interval& i, TimeNs t) { return i.end <= t; });
  auto last = std::lower_bound(first, intervals_.end(), window.end,
                               [](const Interval& i, TimeNs t) { return i.start < t; });
  if (first == last) return 0;
  auto lo = static_cast<size_t>(first - intervals_.begin());
  auto hi = static_cast<size_t>(last - intervals_.begin());
  DurationNs total = covered_before_[hi] - covered_before_[lo];
  // Only the first and the last member can stick out of the window.
  total = SaturatingSub(total, std::max<DurationNs>(0, SaturatingSub(window.start, first->start)));
  total = SaturatingSub(total, std::max<DurationNs>(0, SaturatingSub((last - 1)->end, window.end)));
  return std::max<DurationNs>(0, total);
}

}  // namespace gpuwhy
