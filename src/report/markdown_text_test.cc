#include "report/markdown_text.h"

#include <gtest/gtest.h>

namespace gpuwhy::report {
namespace markdown_text_test {

TEST(MarkdownTextTest, NamesRenderAsTheirCharacters) {
  // "__next__" after a '.' would be a bold "next"; inside a word '_' is inert and stays.
  EXPECT_EQ(MarkdownText("DataLoaderIter.__next__"), "DataLoaderIter.\\_\\_next\\_\\_");
  EXPECT_EQ(MarkdownText("step.dataloader_pct"), "step.dataloader_pct");
  EXPECT_EQ(MarkdownText("x86_64__nvidia"), "x86_64__nvidia");
  EXPECT_EQ(MarkdownText("aten::_to_copy"), "aten::\\_to_copy");
  EXPECT_EQ(MarkdownText("![x](http://e) [y](z) <b>"), "!\\[x\\](http://e) \\[y\\](z) \\<b>");
  EXPECT_EQ(MarkdownText("a|b *c* ~d~ $e$ `f` \\g"), "a\\|b \\*c\\* \\~d\\~ \\$e\\$ \\`f\\` \\\\g");
  // A line break cannot start a new block: it is shown, escaped.
  EXPECT_EQ(MarkdownText("x\n# Injected"), "x\\\\n# Injected");
  EXPECT_EQ(MarkdownText("\x1b[2J"), "\\\\x1b\\[2J");
  EXPECT_EQ(MarkdownText("void gemm<float>(float*, int) µs"),
            "void gemm\\<float>(float\\*, int) µs");
}

TEST(MarkdownTextTest, NamesNeverMentionAnyoneOnGitHub) {
  EXPECT_EQ(MarkdownText("@torch.compile"), "@&#8203;torch.compile");
  EXPECT_EQ(MarkdownText("ping @org/team now"), "ping @&#8203;org/team now");
  EXPECT_EQ(MarkdownText("(@x)"), "(@&#8203;x)");
  // Not mentions: an address inside a word, a lone '@', '@' before punctuation.
  EXPECT_EQ(MarkdownText("ops@example.com"), "ops@example.com");
  EXPECT_EQ(MarkdownText("a @ b @-"), "a @ b @-");
}

TEST(MarkdownTextTest, CodeFencesAreLongerThanWhatTheyHold) {
  EXPECT_EQ(MarkdownCode("a`b"), "``a`b``");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");
  EXPECT_EQ(MarkdownCode("a\nb"), "`a\\nb`");
  EXPECT_EQ(MarkdownFence("plain"), "```");
  EXPECT_EQ(MarkdownFence("x\n```\n# h\n````"), "`````");
  EXPECT_EQ(MarkdownCodeBlock("sh", "a\n```\nb", "   "),
            "   ````sh\n   a\n   ```\n   b\n   ````\n");
  EXPECT_EQ(MarkdownCodeBlock("text", "line\x1b]52;\n"), "```text\nline\\x1b]52;\n```\n");
}

}  // namespace markdown_text_test
}  // namespace gpuwhy::report
