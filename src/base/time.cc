#include "base/time.h"
#include "base/ascii.h"

#include <limits>

namespace gpuwhy {
namespace {


// Multiplies |value| by 10 and adds |digit|; false on int64 overflow.
bool AccumulateDigit(int64_t& value, int digit) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (value > (kMax - digit) / 10) return false;
  value = value * 10 + digit;
  return true;
}

// Exact decimal "mantissa × 10^exponent" scaled to an integer, truncating extra digits.
struct Decimal {
  bool negative = false;
  std::string_view int_digits;
  std::string_view frac_digits;
  int exponent = 0;
};

std::optional<Decimal> SplitDecimal(std::string_view text) {
  Decimal d;
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    d.negative = text[i] == '-';
    ++i;
  }
  size_t int_begin = i;
  while (i < text.size() && IsAsciiDigit(text[i])) ++i;
  d.int_digits = text.substr(int_begin, i - int_begin);
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t frac_begin = i;
    while (i < text.size() && IsAsciiDigit(text[i])) ++i;
    d.frac_digits = text.substr(frac_begin, i - frac_begin);
  }
  if (d.int_digits.empty() && d.frac_digits.empty()) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    if (i >= text.size() || !IsAsciiDigit(text[i])) return std::nullopt;
    int exponent = 0;
    while (i < text.size() && IsAsciiDigit(text[i])) {
      if (exponent > 1000) return std::nullopt;
      exponent = exponent * 10 + (text[i] - '0');
      ++i;
    }
    d.exponent = exp_negative ? -exponent : exponent;
  }
  if (i != text.size()) return std::nullopt;
  return d;
}

// Returns the decimal scaled by 10^scale as an integer (digits past the point truncated).
std::optional<int64_t> ScaleDecimal(const Decimal& d, int scale) {
  int shift = scale + d.exponent;  // how many fraction digits move left of the point
  int64_t value = 0;
  for (char c : d.int_digits) {
    if (!AccumulateDigit(value, c - '0')) return std::nullopt;
  }
  int taken = 0;
  for (; taken < shift && taken < static_cast<int>(d.frac_digits.size()); ++taken) {
    if (!AccumulateDigit(value, d.frac_digits[taken] - '0')) return std::nullopt;
  }
  for (; taken < shift; ++taken) {
    if (!AccumulateDigit(value, 0)) return std::nullopt;
  }
  // A negative shift divides: drop trailing integer digits.
  for (int s = shift; s < 0; ++s) value /= 10;
  return d.negative ? -value : value;
}

// Fast path for the shapes profilers write ("123", "-4", "1234.567", "1606910596297023"):
// optional sign, up to 16 integer digits, optional fraction. Returns false for anything
// else (exponents, more digits), which the exact general path then handles.
bool ParsePlainDecimal(std::string_view text, int scale_digits, int64_t& out) {
  const char* p = text.data();
  const char* end = p + text.size();
  bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* int_begin = p;
  int64_t value = 0;
  // At most 17 digits are accumulated (no overflow); more than 16 sends the text to the
  // general path, which checks every step.
  while (p < end && static_cast<unsigned>(*p - '0') < 10 && p - int_begin < 17) {
    value = value * 10 + (*p++ - '0');
  }
  ptrdiff_t int_digits = p - int_begin;
  if (int_digits == 0 || int_digits > 16) return false;
  int64_t fraction = 0;
  int taken = 0;
  if (p < end && *p == '.') {
    ++p;
    const char* frac_begin = p;
    while (p < end && static_cast<unsigned>(*p - '0') < 10) {
      if (taken < scale_digits) {
        fraction = fraction * 10 + (*p - '0');
        ++taken;
      }
      ++p;
    }
    if (p == frac_begin) return false;
  }
  if (p != end) return false;
  int64_t scale = 1;
  for (int i = 0; i < scale_digits; ++i) scale *= 10;
  for (; taken < scale_digits; ++taken) fraction *= 10;
  if (value > (std::numeric_limits<int64_t>::max() - fraction) / scale) return false;
  int64_t result = value * scale + fraction;
  out = negative ? -result : result;
  return true;
}

}  // namespace

std::optional<TimeNs> ParseMicrosecondsToNs(std::string_view text) {
  int64_t fast = 0;
  if (ParsePlainDecimal(text, 3, fast)) return fast;
  auto decimal = SplitDecimal(text);
  if (!decimal) return std::nullopt;
  return ScaleDecimal(*decimal, 3);
}

std::optional<int64_t> ParseExactInt(std::string_view text) {
  int64_t fast = 0;
  if (ParsePlainDecimal(text, 0, fast)) return fast;
  auto decimal = SplitDecimal(text);
  if (!decimal) return std::nullopt;
  return ScaleDecimal(*decimal, 0);
}

}  // namespace gpuwhy
