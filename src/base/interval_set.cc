#include "base/interval_set.h"

#include <algorithm>

namespace gpuwhy {

IntervalSet IntervalSet::FromUnsorted(std::vector<Interval> intervals) {
  std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
  // Most callers pass intervals already in start order (GPU ops, slices as stored): a check
  // is a pass where a sort is n log n. The union does not depend on the order of equal starts.
  auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_start)) {
    std::sort(intervals.begin(), intervals.end(), by_start);
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

void IntervalSet::Seal() {
  covered_before_.clear();
  if (intervals_.empty()) return;
  covered_before_.reserve(intervals_.size() + 1);
  DurationNs total = 0;
  covered_before_.push_back(0);
  for (const Interval& i : intervals_) covered_before_.push_back(total += i.length());
}

IntervalSet IntervalSet::Union(const IntervalSet& other) const {
  std::vector<Interval> all;
  all.reserve(intervals_.size() + other.intervals_.size());
  std::merge(intervals_.begin(), intervals_.end(), other.intervals_.begin(), other.intervals_.end(),
             std::back_inserter(all),
             [](const Interval& a, const Interval& b) { return a.start < b.start; });
  IntervalSet set;
  for (const Interval& i : all) {
    if (!set.intervals_.empty() && i.start <= set.intervals_.back().end) {
      set.intervals_.back().end = std::max(set.intervals_.back().end, i.end);
    } else {
      set.intervals_.push_back(i);
    }
  }
  set.Seal();
  return set;
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
  total -= std::max<DurationNs>(0, window.start - first->start);
  total -= std::max<DurationNs>(0, (last - 1)->end - window.end);
  return total;
}

}  // namespace gpuwhy
