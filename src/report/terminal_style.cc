#include "report/terminal_style.h"

#include <span>

#include "base/text_escape.h"

namespace gpuwhy {
namespace {

std::string_view StyleCode(Style style) {
  switch (style) {
    case Style::kBold: return "\x1b[1m";
    case Style::kDim: return "\x1b[2m";
    case Style::kRed: return "\x1b[31m";
    case Style::kYellow: return "\x1b[33m";
    case Style::kGreen: return "\x1b[32m";
    case Style::kCyan: return "\x1b[36m";
  }
  return "";
}

// Every escape sequence gpuwhy itself writes: Styled's, the report's bold headings and its
// severity and checklist colours (diagnosis_text.cc), and the reset.
constexpr std::string_view kOurStyles[] = {"\x1b[0m",  "\x1b[1m",  "\x1b[2m",  "\x1b[31m",
                                           "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[1;31m"};

}  // namespace

std::string TerminalText(std::string_view rendered, ColourMode mode) {
  std::span<const std::string_view> keep;
  if (mode == ColourMode::kOn) keep = kOurStyles;
  return text::EscapeControl(rendered, text::LineBreaks::kKeep, keep);
}

std::string Styled(ColourMode mode, Style style, std::string_view text) {
  if (mode == ColourMode::kOff) return std::string(text);
  std::string out(StyleCode(style));
  out.append(text);
  out.append("\x1b[0m");
  return out;
}

std::vector<std::string> WrapText(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t line_width = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t space = text.find(' ', pos);
    std::string_view word = text.substr(pos, space == std::string_view::npos ? space : space - pos);
    pos = space == std::string_view::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    size_t word_width = DisplayWidth(word);
    if (line_width > 0 && line_width + 1 + word_width > width) {
      lines.push_back(std::move(line));
      line.clear();
      line_width = 0;
    }
    if (line_width > 0) {
      line.push_back(' ');
      ++line_width;
    }
    line.append(FitWidth(word, width));
    line_width += std::min(word_width, width);
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace gpuwhy
