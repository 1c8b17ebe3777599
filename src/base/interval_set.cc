#include "base/interval_set.h"

#include <algorithm>

namespace gpuwhy {

IntervalSet IntervalSet::FromUnsorted(std::vector<Interval> intervals) {
  std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  IntervalSet set;
  for (const Interval& i : intervals) {
    if (!set.intervals_.empty() && i.start <= set.intervals_.back().end) {
      set.intervals_.back().end = std::max(set.intervals_.back().end, i.end);
    } else {
      set.intervals_.push_back(i);
    }
  }
  return set;
}

DurationNs IntervalSet::TotalLength() const {
  DurationNs total = 0;
  for (const Interval& i : intervals_) total += i.length();
  return total;
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
  return set;
}

IntervalSet IntervalSet::Clip(Interval window) const {
  IntervalSet set;
  for (const Interval& i : intervals_) {
    TimeNs start = std::max(i.start, window.start);
    TimeNs end = std::min(i.end, window.end);
    if (start < end) set.intervals_.push_back({start, end});
  }
  return set;
}

IntervalSet IntervalSet::Complement(Interval window) const {
  IntervalSet whole;
  if (window.start < window.end) whole.intervals_.push_back(window);
  return whole.Subtract(*this);
}

DurationNs IntervalSet::CoveredLength(Interval window) const {
  auto it = std::lower_bound(intervals_.begin(), intervals_.end(), window.start,
                             [](const Interval& i, TimeNs t) { return i.end <= t; });
  DurationNs total = 0;
  for (; it != intervals_.end() && it->start < window.end; ++it) {
    total += std::min(it->end, window.end) - std::max(it->start, window.start);
  }
  return total;
}

}  // namespace gpuwhy
