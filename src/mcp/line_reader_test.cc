#include "mcp/line_reader.h"

#include <sstream>

#include <gtest/gtest.h>

namespace gpuwhy::mcp {
namespace line_reader_test {

TEST(LineReaderTest, ReadsOneMessagePerLineAndDropsCarriageReturns) {
  std::istringstream in("{\"a\":1}\r\n{\"b\":2}\nlast");
  LineReader reader(in, 100);
  Line first = reader.Next();
  EXPECT_EQ(first.kind, LineKind::kMessage);
  EXPECT_EQ(first.text, "{\"a\":1}");
  EXPECT_EQ(reader.Next().text, "{\"b\":2}");
  Line last = reader.Next();  // no newline at the end: still a message
  EXPECT_EQ(last.kind, LineKind::kMessage);
  EXPECT_EQ(last.text, "last");
  EXPECT_EQ(reader.Next().kind, LineKind::kEnd);
}

TEST(LineReaderTest, SkipsALineOverTheBoundWithoutKeepingIt) {
  std::string huge(10000, 'x');
  std::istringstream in(huge + "\nok\n");
  LineReader reader(in, 64);
  Line over = reader.Next();
  EXPECT_EQ(over.kind, LineKind::kTooLong);
  EXPECT_TRUE(over.text.empty());
  EXPECT_LE(over.text.capacity(), 64u);
  Line next = reader.Next();  // the stream is back in step after the long line
  EXPECT_EQ(next.kind, LineKind::kMessage);
  EXPECT_EQ(next.text, "ok");
}

TEST(LineReaderTest, ALineOfExactlyTheBoundIsAMessage) {
  std::istringstream in(std::string(64, 'y') + "\n");
  LineReader reader(in, 64);
  EXPECT_EQ(reader.Next().kind, LineKind::kMessage);
}

}  // namespace line_reader_test
}  // namespace gpuwhy::mcp
