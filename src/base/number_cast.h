// A number read from an input as an integer: a plain static_cast of NaN, an infinity or a value
// out of the target's range is undefined behaviour, and inputs hold all of those.
#pragma once

#include <cmath>
#include <limits>
#include <optional>

namespace gpuwhy {

// |v| truncated toward zero as a T; nullopt when it is not finite or outside T's range.
template <typename T>
std::optional<T> ToInteger(double v) {
  static_assert(std::numeric_limits<T>::is_integer && std::numeric_limits<T>::is_signed);
  // -min is 2^(bits-1), exact as a double: [min, -min) is exactly T's range after truncation.
  constexpr double kLow = static_cast<double>(std::numeric_limits<T>::min());
  if (!std::isfinite(v) || v < kLow || v >= -kLow) return std::nullopt;
  return static_cast<T>(v);
}

}  // namespace gpuwhy
