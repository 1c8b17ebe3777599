#include "base/text_escape.h"

#include <gtest/gtest.h>

namespace gpuwhy::text {
namespace text_escape_test {

TEST(EscapeControlTest, TerminalSequencesFromNamesArePrintedNotObeyed) {
  // A clipboard write (OSC 52), a screen clear, an OSC 8 link and an unterminated CSI.
  EXPECT_EQ(EscapeControl("k\x1b]52;c;ZXZpbA==\x07"), "k\\x1b]52;c;ZXZpbA==\\x07");
  EXPECT_EQ(EscapeControl("\x1b[2Jgemm"), "\\x1b[2Jgemm");
  EXPECT_EQ(EscapeControl("\x1b]8;;http://x\x1b\\a\x1b]8;;\x1b\\"),
            "\\x1b]8;;http://x\\x1b\\a\\x1b]8;;\\x1b\\");
  EXPECT_EQ(EscapeControl("op\x1b["), "op\\x1b[");
  EXPECT_EQ(EscapeControl("a\rb\x7f\x01"), "a\\rb\\x7f\\x01");
}

TEST(EscapeControlTest, C1ControlsAndBytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(EscapeControl("\xc2\x9b"
                          "2J"),
            "\\u009b2J");  // U+009B, CSI
  EXPECT_EQ(EscapeControl("a\x9b"
                          "b\xff"),
            "a\\x9bb\\xff");
  EXPECT_EQ(EscapeControl("\xe2\x80"), "\\xe2\\x80");  // cut sequence
}

TEST(EscapeControlTest, CleanTextLineBreaksAndOurStylesAreKept) {
  const std::string clean = "aten::mm 12.3 µs — void gemm<float>\t«x»";
  EXPECT_EQ(EscapeControl(clean), clean);
  EXPECT_EQ(EscapeControl("a\nb"), "a\\nb");
  EXPECT_EQ(EscapeControl("a\nb", LineBreaks::kKeep), "a\nb");
  const std::string_view ours[] = {"\x1b[1m", "\x1b[0m"};
  EXPECT_EQ(EscapeControl("\x1b[1mRank 0\x1b[0m \x1b[31m\n", LineBreaks::kKeep, ours),
            "\x1b[1mRank 0\x1b[0m \\x1b[31m\n");
  // Escaping twice changes nothing more.
  std::string once = EscapeControl("\x1b]52;\xff\xc2\x85");
  EXPECT_EQ(EscapeControl(once), once);
}

TEST(Utf8Test, InvalidBytesAreReplacedAsTheJsonWriterDoes) {
  EXPECT_TRUE(IsValidUtf8("plain µs €"));
  EXPECT_FALSE(IsValidUtf8("a\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));      // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_EQ(ReplaceInvalidUtf8("a\xff"
                               "b\xe2\x82"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("€"), "€");
}

TEST(CsvFieldTest, FieldsAreQuotedPerRfc4180) {
  EXPECT_EQ(CsvField("gpu.util_pct"), "gpu.util_pct");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("python,worker"), "\"python,worker\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "two\\nlines");                 // one record, one line
  EXPECT_EQ(CsvField("\x1b[31mpython\a"), "\\x1b[31mpython\\x07");  // no raw ESC or BEL
  EXPECT_EQ(CsvField(" padded"), "\" padded\"");
}

TEST(CsvFieldTest, FormulasAreNeutralised) {
  EXPECT_EQ(CsvField("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(CsvField("@SUM(A1:A9)"), "\"'@SUM(A1:A9)\"");
  EXPECT_EQ(CsvField("+1"), "\"'+1\"");
  EXPECT_EQ(CsvField("-1"), "\"'-1\"");
  EXPECT_EQ(CsvField("\tx"), "\"'\tx\"");
  EXPECT_EQ(CsvField("a=b"), "a=b");
}

}  // namespace text_escape_test
}  // namespace gpuwhy::text
