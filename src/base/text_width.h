// Fitting text into terminal columns by display width (UTF-8 aware) rather than bytes,
// and grouping digits; shared by every text renderer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuwhy {

inline constexpr std::string_view kEllipsis = "…";

inline bool IsUtf8ContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Number of terminal columns |text| takes, counting each UTF-8 code point as one.
size_t DisplayWidth(std::string_view text);

// Cuts |text| to at most |width| columns, ending with "…" when something was cut.
std::string FitWidth(std::string_view text, size_t width);

// Like FitWidth, but keeps the end (for paths, where the file name matters most).
std::string FitWidthKeepEnd(std::string_view text, size_t width);

// 1234567 -> "1,234,567" (INT64_MIN included).
std::string GroupDigits(int64_t value);

}  // namespace gpuwhy
