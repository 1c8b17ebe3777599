#include "ingest/kineto/json_event_splitter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace gpuwhy {
namespace json_event_splitter_test {

class StringSource : public ByteSource {
 public:
  StringSource(std::string content, size_t max_read)
      : content_(std::move(content)), max_read_(max_read) {}
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    size_t n = std::min({capacity, max_read_, content_.size() - offset_});
    std::memcpy(dst, content_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  Compression compression() const override { return Compression::kNone; }
  uint64_t file_offset() const override { return offset_; }

 private:
  std::string content_;
  size_t max_read_;
  size_t offset_ = 0;
};

struct Collected : JsonEventSplitter::Sink {
  std::vector<std::string> events;
  std::vector<std::pair<std::string, std::string>> members;
  void OnEvent(std::string_view e, uint64_t) override { events.emplace_back(e); }
  void OnTopLevelMember(std::string_view k, std::string_view v, uint64_t) override {
    members.emplace_back(std::string(k), std::string(v));
  }
};

StatusOr<JsonEventSplitter::Result> Split(const std::string& json, Collected& out,
                                          size_t max_read = 3) {
  StringSource source(json, max_read);  // tiny reads: every token crosses a boundary
  JsonEventSplitter splitter(source, 4096);
  return splitter.Run(out);
}

TEST(JsonEventSplitterTest, ObjectWithMembersBeforeAndAfterEvents) {
  std::string json =
      R"({"a": 1, "deviceProperties": [{"id": 0}], "traceEvents": [ {"ph":"X","name":"a}\"]"} ,
    {"ph":"i"}], "distributedInfo": {"rank": 3}, "s": "x\\"})";
  Collected c;
  auto r = Split(json, c);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->truncated);
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[0], R"({"ph":"X","name":"a}\"]"})");
  ASSERT_EQ(c.members.size(), 4u);
  EXPECT_EQ(c.members[0], (std::pair<std::string, std::string>{"a", "1"}));
  EXPECT_EQ(c.members[2].first, "distributedInfo");
  EXPECT_EQ(c.members[3].second, R"("x\\")");
}

TEST(JsonEventSplitterTest, TopLevelArray) {
  Collected c;
  auto r = Split("\xEF\xBB\xBF [{\"ph\":\"X\"},{\"ph\":\"M\"}]", c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(c.events.size(), 2u);
  EXPECT_FALSE(r->truncated);
}

TEST(JsonEventSplitterTest, EveryPrefixYieldsOnlyCompleteEvents) {
  std::string json =
      R"({"traceEvents": [{"ph":"X","ts":1,"dur":2},{"ph":"X","name":"x,y"},{"ph":"i"}], "x": 1})";
  size_t previous = 0;
  for (size_t cut = 1; cut < json.size(); ++cut) {
    Collected c;
    auto r = Split(json.substr(0, cut), c);
    ASSERT_TRUE(r.ok()) << cut << ": " << r.status().message();
    EXPECT_TRUE(r->truncated) << cut;
    EXPECT_GE(c.events.size(), previous);
    previous = c.events.size();
    for (const auto& e : c.events) EXPECT_EQ(e.back(), '}');
  }
  EXPECT_EQ(previous, 3u);
}

TEST(JsonEventSplitterTest, UnusableInputsAreErrorsWithOffsets) {
  Collected c;
  auto empty = Split("   \n", c);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos);
  auto binary = Split(std::string("\x7f"
                                  "ELF\x02\x01",
                                  6),
                      c);
  ASSERT_FALSE(binary.ok());
  EXPECT_NE(binary.status().message().find("byte 0"), std::string::npos);
  auto no_events = Split(R"({"foo": [1, 2]})", c);
  ASSERT_FALSE(no_events.ok());
  EXPECT_NE(no_events.status().message().find("traceEvents"), std::string::npos);
  auto bad_key = Split(R"({"a": 1, 5: 2})", c);
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("byte 9"), std::string::npos);
}

TEST(JsonEventSplitterTest, BrokenStructureAfterEventsKeepsThem) {
  Collected c;
  auto r = Split(R"({"traceEvents": [{"ph":"X"}], "a" 1})", c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(c.events.size(), 1u);
  EXPECT_TRUE(r->truncated);
  EXPECT_FALSE(r->structure_error.empty());
}

TEST(JsonEventSplitterTest, LargeElementsGrowTheBuffer) {
  std::string big(100000, 'x');
  std::string json = "[{\"name\":\"" + big + "\"},{\"ph\":\"X\"}]";
  Collected c;
  auto r = Split(json, c, 1 << 20);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[0].size(), big.size() + 11);
}

}  // namespace json_event_splitter_test
}  // namespace gpuwhy
