// The median of a small sample (ranks, steps): the middle value, or the mean of the two
// middle values for an even count; T{} for no values.
#pragma once

#include <algorithm>
#include <vector>

namespace gpuwhy {

template <typename T>
T MedianOf(std::vector<T> values) {
  if (values.empty()) return T{};
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace gpuwhy
