#include "base/json_writer.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace gpuwhy {
namespace json_writer_test {

std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(AppendJsonStringTest, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(Quoted("plain"), "\"plain\"");
  EXPECT_EQ(Quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Quoted("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\"");
  EXPECT_EQ(Quoted(std::string_view("\x01\x1f\0", 3)), "\"\\u0001\\u001f\\u0000\"");
  EXPECT_EQ(Quoted("/\x7f"), "\"/\x7f\"");
}

TEST(AppendJsonStringTest, KeepsValidUtf8) {
  EXPECT_EQ(Quoted("µs → ✓ \xF0\x9F\x98\x80"), "\"µs → ✓ \xF0\x9F\x98\x80\"");
}

TEST(AppendJsonStringTest, ReplacesInvalidBytes) {
  const std::string kFffd = "\xEF\xBF\xBD";
  EXPECT_EQ(Quoted(std::string("a\xFF") + "b"), "\"a" + kFffd + "b\"");
  EXPECT_EQ(Quoted("\x80"), "\"" + kFffd + "\"");                          // stray continuation
  EXPECT_EQ(Quoted("\xC0\xAF"), "\"" + kFffd + kFffd + "\"");              // overlong '/'
  EXPECT_EQ(Quoted("\xED\xA0\x80"), "\"" + kFffd + kFffd + kFffd + "\"");  // surrogate
  EXPECT_EQ(Quoted("\xE2\x82"), "\"" + kFffd + kFffd + "\"");              // cut sequence
  EXPECT_EQ(Quoted("\xF4\x90\x80\x80").size(), 2 + 4 * kFffd.size());      // > U+10FFFF
}

TEST(JsonWriterTest, CompactNesting) {
  JsonWriter w(0);
  w.BeginObject();
  w.Field("name", "x");
  w.Field("n", int64_t{-3});
  w.Key("list");
  w.BeginArray();
  w.Int(1);
  w.Bool(true);
  w.Null();
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.EndArray();
  w.Field("u", uint64_t{18446744073709551615u});
  w.EndObject();
  EXPECT_TRUE(w.complete());
  EXPECT_EQ(w.str(), R"({"name":"x","n":-3,"list":[1,true,null,{},[]],"u":18446744073709551615})");
}

TEST(JsonWriterTest, PrettyIndent) {
  JsonWriter w(2);
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(1);
  w.Int(2);
  w.EndArray();
  w.Field("b", false);
  w.EndObject();
  EXPECT_EQ(w.str(), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": false\n}\n");
}

TEST(JsonWriterTest, DoublesRoundTripAndNonFiniteIsNull) {
  JsonWriter w(0);
  w.BeginArray();
  w.Double(1.5);
  w.Double(0.1);
  w.Double(2.0);
  w.Double(std::nan(""));
  w.Double(std::numeric_limits<double>::infinity());
  w.EndArray();
  EXPECT_EQ(w.str(), "[1.5,0.1,2,null,null]");
}

TEST(JsonWriterTest, KeysAreEscaped) {
  JsonWriter w(0);
  w.BeginObject();
  w.Field("k\"ey", "v");
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"k\"ey":"v"})");
}

}  // namespace json_writer_test
}  // namespace gpuwhy
