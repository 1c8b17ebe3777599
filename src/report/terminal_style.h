// Terminal niceties kept tiny and pure: escape-code styles (the command line decides whether a
// stream gets colour), and wrapping text into a column budget by display width (UTF-8 aware)
// rather than by bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/text_width.h"

namespace gpuwhy {

enum class ColourMode { kOff, kOn };

enum class Style { kBold, kDim, kRed, kYellow, kGreen, kCyan };

// |text| wrapped in the style's escape codes when |mode| is kOn, else |text| unchanged.
std::string Styled(ColourMode mode, Style style, std::string_view text);

// Splits |text| at spaces into lines of at most |width| columns; a word longer than a line
// is cut with FitWidth.
std::vector<std::string> WrapText(std::string_view text, size_t width);

}  // namespace gpuwhy
