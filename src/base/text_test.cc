#include "base/text.h"

#include <gtest/gtest.h>

namespace gpuwhy::text {
namespace text_test {

TEST(TextTest, LinesKeepTheLastOneAndDropCarriageReturns) {
  std::vector<NumberedLine> lines = NumberLines("a\r\n\nb");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].number, 1);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_EQ(lines[1].text, "");
  EXPECT_EQ(lines[2].number, 3);
  EXPECT_EQ(lines[2].text, "b");
  EXPECT_EQ(SplitLines("a\r\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_TRUE(SplitLines("").empty());
}

TEST(TextTest, TrimAndWordsUseAsciiWhitespace) {
  EXPECT_EQ(Trim(" \t x y \r\f"), "x y");
  EXPECT_EQ(SplitWords("  gpu\t 0  42 "), (std::vector<std::string_view>{"gpu", "0", "42"}));
  EXPECT_EQ(SplitCsv(" a, \"b,c\" ,d "), (std::vector<std::string>{"a", "b,c", "d"}));
  EXPECT_EQ(StripAnsi("\x1b[4mGPU0\x1b[0m CPU"), "GPU0 CPU");
}

TEST(TextTest, NumbersWithTheirDecorations) {
  EXPECT_EQ(ParseNumber("631.95 W"), 631.95);
  EXPECT_EQ(ParseNumber("100 %"), 100);
  EXPECT_EQ(ParseNumber("0x1F"), 31);
  EXPECT_FALSE(ParseNumber("[N/A]").has_value());
  EXPECT_FALSE(ParseNumber("12abc").has_value());
  EXPECT_EQ(LeadingNumber(" 26.562 GB/s"), 26.562);
  EXPECT_EQ(LeadingNumber("12abc"), 12);
  EXPECT_FALSE(LeadingNumber("-").has_value());
  EXPECT_EQ(ParseInt("0x10"), 16);
  EXPECT_FALSE(ParseInt("10 MiB").has_value());
}

TEST(TextTest, DatesAndTimesOfDay) {
  EXPECT_EQ(ParseTimeOfDay("01:02:03.5"), (3723 * kNsPerSec) + kNsPerSec / 2);
  EXPECT_FALSE(ParseTimeOfDay("25:00:00").has_value());
  EXPECT_EQ(ParseDateTime("19700102", "00:00:01"), (86400 + 1) * kNsPerSec);
  EXPECT_EQ(ParseDateTime("1970/01/02", "00:00:01"), (86400 + 1) * kNsPerSec);
  EXPECT_FALSE(ParseDateTime("1970-13-01", "00:00:00").has_value());
}

}  // namespace text_test
}  // namespace gpuwhy::text
