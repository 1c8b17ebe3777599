// Merging a vector made of runs that are each already sorted (per host thread, per stream):
// O(n log runs) where sorting the whole is O(n log n).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace gpuwhy {

// Merges the sorted runs [bounds[k], bounds[k + 1]) of |v| pairwise into |less| order;
// bounds starts at 0 and ends at v.size(). A run out of order leaves v unsorted, never
// wrong: callers that cannot promise sorted runs check std::is_sorted after.
template <typename T, typename Less>
void MergeSortedRuns(std::vector<T>& v, std::vector<size_t> bounds, Less less) {
  auto at = [&v](size_t k) { return v.begin() + static_cast<std::ptrdiff_t>(k); };
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t k = 0; k + 2 < bounds.size(); k += 2) {
      std::inplace_merge(at(bounds[k]), at(bounds[k + 1]), at(bounds[k + 2]), less);
      merged.push_back(bounds[k + 2]);
    }
    if (bounds.size() % 2 == 0) merged.push_back(bounds.back());  // an odd run out
    bounds = std::move(merged);
  }
}

}  // namespace gpuwhy
