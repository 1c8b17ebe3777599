#include "base/text_width.h"

#include <fmt/format.h>

namespace gpuwhy {

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (char c : text) width += IsUtf8ContinuationByte(c) ? 0 : 1;
  return width;
}

std::string FitWidth(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  size_t columns = 0;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    if (IsUtf8ContinuationByte(text[i])) continue;
    if (columns == width - 1) break;
    ++columns;
  }
  std::string out(text.substr(0, i));
  out.append(kEllipsis);
  return out;
}

std::string FitWidthKeepEnd(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  size_t columns = 0;
  size_t i = text.size();
  while (i > 0 && columns < width - 1) {
    --i;
    if (!IsUtf8ContinuationByte(text[i])) ++columns;
  }
  std::string out(kEllipsis);
  out.append(text.substr(i));
  return out;
}

std::string GroupDigits(int64_t value) {
  // Negate via value + 1 so INT64_MIN does not overflow.
  uint64_t magnitude =
      value < 0 ? static_cast<uint64_t>(-(value + 1)) + 1 : static_cast<uint64_t>(value);
  std::string digits = fmt::format("{}", magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return value < 0 ? "-" + out : out;
}

}  // namespace gpuwhy
