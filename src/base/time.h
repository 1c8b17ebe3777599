// Time is int64 nanoseconds everywhere; these helpers name the conversions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwhy {

using TimeNs = int64_t;
using DurationNs = int64_t;

constexpr DurationNs kNsPerUs = 1000;
constexpr DurationNs kNsPerMs = 1000 * kNsPerUs;
constexpr DurationNs kNsPerSec = 1000 * kNsPerMs;

constexpr double NsToUs(DurationNs ns) { return static_cast<double>(ns) / kNsPerUs; }
constexpr double NsToMs(DurationNs ns) { return static_cast<double>(ns) / kNsPerMs; }
constexpr double NsToSec(DurationNs ns) { return static_cast<double>(ns) / kNsPerSec; }
constexpr DurationNs UsToNs(int64_t us) { return us * kNsPerUs; }
constexpr DurationNs MsToNs(int64_t ms) { return ms * kNsPerMs; }

// Parses a JSON decimal number of microseconds ("123", "123.456789", "1.5e3", "-2.5")
// into exact nanoseconds without going through a double: epoch-µs values need 19
// significant digits. Digits beyond ns precision are truncated toward zero.
// Returns nullopt for text that is not a number or that overflows int64.
std::optional<TimeNs> ParseMicrosecondsToNs(std::string_view text);

// Parses an integer JSON number or numeric string exactly ("42", "-7", "3.0").
std::optional<int64_t> ParseExactInt(std::string_view text);

}  // namespace gpuwhy
