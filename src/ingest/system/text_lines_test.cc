#include "ingest/system/text_lines.h"

#include <gtest/gtest.h>

#include "base/text_escape.h"

namespace gpuwhy::system {
namespace text_lines_test {

TEST(QuoteTest, ALongLineIsCutWhereACharacterStarts) {
  // 299 ASCII bytes, then a three-byte '€' across the 300-byte limit.
  std::string line = std::string(299, 'x') + "€ tail";
  SourceQuote q = Quote("dmesg.txt", {12, line});
  EXPECT_EQ(q.file, "dmesg.txt");
  EXPECT_EQ(q.line, 12);
  EXPECT_EQ(q.text, std::string(299, 'x') + "…");
  EXPECT_TRUE(text::IsValidUtf8(q.text));
  EXPECT_EQ(Quote("f", {1, "  short \x1b[2J "}).text, "short \x1b[2J");  // kept as read
}

}  // namespace text_lines_test
}  // namespace gpuwhy::system
