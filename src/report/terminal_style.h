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

// A whole rendered text (report, info, diff, watch screen) made safe for a terminal, the last
// step of every text renderer: each control character that came with a name, a file name or
// a quoted line is shown escaped (text::EscapeControl: "\x1b]52;…", "\x1b[2J"); line breaks
// stay, and with |mode| kOn so do our own styles, exactly as Styled and the report write them.
std::string TerminalText(std::string_view rendered, ColourMode mode);

// Splits |text| at spaces into lines of at most |width| columns; a word longer than a line
// is cut with FitWidth.
std::vector<std::string> WrapText(std::string_view text, size_t width);

}  // namespace gpuwhy
