#include "mcp/page_store.h"

#include <gtest/gtest.h>

namespace gpuwhy::mcp {
namespace page_store_test {

TEST(PageStoreTest, SplitsAtLineEndsWithinTheBound) {
  std::vector<std::string> pages = SplitPages("aaaa\nbbbb\ncccc\n", 10);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0], "aaaa\nbbbb\n");
  EXPECT_EQ(pages[1], "cccc\n");
}

TEST(PageStoreTest, CutsALongLineAtACharacterBoundary) {
  // "é" is two bytes: a cut at 3 bytes would split the second one.
  std::vector<std::string> pages = SplitPages("aééé", 4);
  std::string joined;
  for (const std::string& page : pages) {
    EXPECT_LE(page.size(), 4u);
    EXPECT_NE(static_cast<unsigned char>(page.front()) & 0xC0, 0x80) << page;
    joined += page;
  }
  EXPECT_EQ(joined, "aééé");
}

TEST(PageStoreTest, CursorsWalkEveryPageThenStop) {
  PageStore store(8);
  Page first = store.First("line 1\nline 2\nline 3\n");
  EXPECT_EQ(first.count, 3u);
  EXPECT_EQ(first.text, "line 1\n");
  std::string text = first.text;
  std::string cursor = first.next_cursor;
  while (!cursor.empty()) {
    StatusOr<Page> page = store.Next(cursor);
    ASSERT_TRUE(page.ok()) << page.status().message();
    text += page->text;
    cursor = page->next_cursor;
  }
  EXPECT_EQ(text, "line 1\nline 2\nline 3\n");
}

TEST(PageStoreTest, ShortAnswersKeepNoCursor) {
  PageStore store(100);
  Page page = store.First("short");
  EXPECT_EQ(page.count, 1u);
  EXPECT_TRUE(page.next_cursor.empty());
}

TEST(PageStoreTest, OldAnswersExpireAndBadCursorsSayWhy) {
  PageStore store(4, /*max_answers=*/2);
  std::string oldest = store.First("aaaa\nbbbb\n").next_cursor;
  store.First("cccc\ndddd\n");
  store.First("eeee\nffff\n");
  StatusOr<Page> expired = store.Next(oldest);
  ASSERT_FALSE(expired.ok());
  EXPECT_NE(expired.status().message().find("expired"), std::string::npos);
  StatusOr<Page> bad = store.Next("p1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not one this server gave"), std::string::npos);
}

}  // namespace page_store_test
}  // namespace gpuwhy::mcp
