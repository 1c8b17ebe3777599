// Arithmetic on numbers that came from an input. In C++ a signed sum, difference or product
// past the type's range is undefined behaviour, and the wrapped result a Release build
// computes is a wrong number that reads as a real one (an end before its start, a span of
// 0 ms). Checked* returns nullopt for the caller to count as a data problem; Saturating*
// stops at the end of the range where a bound is as good as the exact value (a length, a sum
// of lengths, a count).
#pragma once

#include <concepts>
#include <limits>
#include <optional>

namespace gpuwhy {

template <std::integral T>
constexpr std::optional<T> CheckedAdd(T a, T b) {
  T r{};
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <std::integral T>
constexpr std::optional<T> CheckedSub(T a, T b) {
  T r{};
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <std::integral T>
constexpr std::optional<T> CheckedMul(T a, T b) {
  T r{};
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, or the end of T's range it ran past.
template <std::integral T>
constexpr T SaturatingAdd(T a, T b) {
  T r{};
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b < T{0} ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}

// a - b, or the end of T's range it ran past.
template <std::integral T>
constexpr T SaturatingSub(T a, T b) {
  T r{};
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < T{0} ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

// a * b, or the end of T's range it ran past.
template <std::integral T>
constexpr T SaturatingMul(T a, T b) {
  T r{};
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < T{0}) != (b < T{0}) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}

}  // namespace gpuwhy
