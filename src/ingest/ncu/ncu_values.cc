#include "ingest/ncu/ncu_values.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace gpuwhy {
namespace {

// Counted things ncu prints; a prefix scales them by powers of 1000 ("Kinst", "Mbyte").
constexpr std::array<std::string_view, 17> kNouns = {
    "byte",        "bit",         "inst",   "warp",    "block",     "thread",
    "cycle",       "register",    "sector", "request", "wavefront", "SM",
    "instruction", "transaction", "elem",   "op",      "hit"};

// Seconds count as nanoseconds (gpuwhy's time unit); the per-time forms scale to per second.
std::optional<double> TimeScaleNs(std::string_view unit) {
  if (unit == "nsecond") return 1.0;
  if (unit == "usecond") return 1e3;
  if (unit == "msecond") return 1e6;
  if (unit == "second") return 1e9;
  return std::nullopt;
}

std::optional<double> PrefixScale(char prefix) {
  switch (prefix) {
    case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    default: return std::nullopt;
  }
}

bool IsNoun(std::string_view word) {
  for (std::string_view noun : kNouns) {
    if (word == noun) return true;
  }
  return false;
}

// One side of "A/B": a noun with an optional prefix, a time, hertz, or nothing.
std::optional<double> TermScale(std::string_view term) {
  if (term.empty() || term == "%") return 1.0;
  if (IsNoun(term)) return 1.0;
  if (std::optional<double> time = TimeScaleNs(term)) return time;
  if (term == "hz") return 1.0;
  if (term.size() > 1) {
    std::optional<double> prefix = PrefixScale(term[0]);
    std::string_view rest = term.substr(1);
    if (prefix && (IsNoun(rest) || rest == "hz")) return prefix;
    if (term[0] == 'k' && rest == "hz") return 1e3;  // ncu writes "Khz" and "khz"
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> ParseNcuNumber(std::string_view text) {
  std::string digits;
  digits.reserve(text.size());
  size_t since_separator = std::string::npos;  // digits after the last ',' in the integer part
  bool fraction = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ',') {
      // A thousands separator follows 1 to 3 digits and precedes exactly three.
      if (fraction || digits.empty() ||
          (since_separator != std::string::npos && since_separator != 3)) {
        return std::nullopt;
      }
      since_separator = 0;
      continue;
    }
    if (c == '.' || c == 'e' || c == 'E') {
      if (since_separator != std::string::npos && since_separator != 3) return std::nullopt;
      since_separator = std::string::npos;
      fraction = true;
    } else if (c >= '0' && c <= '9' && since_separator != std::string::npos && !fraction) {
      ++since_separator;
    }
    digits.push_back(c);
  }
  if (since_separator != std::string::npos && since_separator != 3) return std::nullopt;
  if (digits.empty()) return std::nullopt;
  double value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> NcuUnitScale(std::string_view unit) {
  const size_t slash = unit.find('/');
  if (slash == std::string_view::npos) return TermScale(unit);
  std::optional<double> top = TermScale(unit.substr(0, slash));
  std::string_view bottom = unit.substr(slash + 1);
  if (!top || bottom.find('/') != std::string_view::npos) return std::nullopt;
  // Per time: a rate per second ("Gbyte/second" -> bytes/s, "cycle/nsecond" -> hertz).
  if (std::optional<double> time_ns = TimeScaleNs(bottom)) return *top * 1e9 / *time_ns;
  std::optional<double> per = TermScale(bottom);
  if (!per) return std::nullopt;
  return *top / *per;
}

}  // namespace gpuwhy
