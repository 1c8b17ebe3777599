#include "report/terminal_style.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace terminal_style_test {

TEST(TerminalTest, StyledOnlyWhenColourIsOn) {
  EXPECT_EQ(Styled(ColourMode::kOff, Style::kRed, "x"), "x");
  EXPECT_EQ(Styled(ColourMode::kOn, Style::kRed, "x"), "\x1b[31mx\x1b[0m");
}

TEST(TerminalTest, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("µs→"), 3u);
}

TEST(TerminalTest, FitWidth) {
  EXPECT_EQ(FitWidth("abcdef", 10), "abcdef");
  EXPECT_EQ(FitWidth("abcdef", 4), "abc…");
  EXPECT_EQ(FitWidth("µµµµµµ", 3), "µµ…");
  EXPECT_EQ(DisplayWidth(FitWidth("µµµµµµ", 3)), 3u);
  EXPECT_EQ(FitWidthKeepEnd("/long/path/file.json", 10), "…file.json");
  EXPECT_EQ(FitWidth("abc", 0), "");
}

TEST(TerminalTest, WrapText) {
  EXPECT_EQ(WrapText("one two three four", 9),
            (std::vector<std::string>{"one two", "three", "four"}));
  EXPECT_EQ(WrapText("  spaced   out ", 20), (std::vector<std::string>{"spaced out"}));
  EXPECT_EQ(WrapText("abcdefghijkl xy", 5), (std::vector<std::string>{"abcd…", "xy"}));
  EXPECT_TRUE(WrapText("", 10).empty());
}

}  // namespace terminal_style_test
}  // namespace gpuwhy
