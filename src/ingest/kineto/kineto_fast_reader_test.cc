// The fast reader must read every event exactly as the simdjson parser does, or decline.
#include "ingest/kineto/kineto_fast_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "base/file_input.h"
#include "base/time.h"
#include "ingest/kineto/json_event_splitter.h"
#include "ingest/kineto/kineto_event_parser.h"
#include "ingest/kineto/kineto_test_util.h"

namespace gpuwhy {
namespace kineto_fast_reader_test {

using kineto_test::Describe;

struct ElementCollector : JsonEventSplitter::Sink {
  std::vector<std::string> elements;
  void OnEvent(std::string_view e, uint64_t) override { elements.emplace_back(e); }
  void OnTopLevelMember(std::string_view, std::string_view, uint64_t) override {}
};

// The ns the fast reader computed while scanning equal the exact parser's on its text.
void ExpectTimesAsTheExactParser(const KinetoEvent& e, const std::string& element) {
  if (e.ts_ns_known) {
    EXPECT_EQ(std::optional<TimeNs>(e.ts_ns), ParseMicrosecondsToNs(e.ts)) << element;
  }
  if (e.dur_ns_known) {
    EXPECT_EQ(std::optional<TimeNs>(e.dur_ns), ParseMicrosecondsToNs(e.dur)) << element;
  }
}

// Compares both readers on every element; returns how many the fast reader took.
size_t CompareOn(const std::vector<std::string>& elements, const std::string& where) {
  KinetoEventParser parser;
  size_t fast_count = 0;
  for (const std::string& element : elements) {
    std::string padded = element + std::string(simdjson::SIMDJSON_PADDING, ' ');
    KinetoEvent fast;
    size_t consumed = 0;
    FastReadResult r = ReadEventFast(padded.data(), element.size(), fast, &consumed);
    if (r != FastReadResult::kOk) continue;
    ++fast_count;
    EXPECT_EQ(consumed, element.size()) << where << ": " << element;
    KinetoEvent reference;
    EXPECT_TRUE(parser.Parse(std::string_view(padded.data(), element.size()), reference))
        << element;
    bool flow = reference.ph == 's' || reference.ph == 'f' || reference.ph == 't';
    if (flow) {
      EXPECT_EQ(fast.cat, reference.cat) << element;
    } else {
      EXPECT_EQ(Describe(fast), Describe(reference)) << where << ": " << element;
    }
    ExpectTimesAsTheExactParser(fast, element);
  }
  return fast_count;
}

TEST(KinetoFastReaderTest, DeclinesEscapesAndReportsIncomplete) {
  KinetoEvent e;
  size_t consumed = 0;
  std::string escaped = R"({"ph": "X", "name": "a\"b", "ts": 1})";
  EXPECT_EQ(ReadEventFast(escaped.data(), escaped.size(), e, &consumed), FastReadResult::kDeclined);
  std::string ok =
      R"({"ph": "X", "args": {"x": [1, {"y": "]}"}], "device": 3}, "ts": 1.5} trailing)";
  ASSERT_EQ(ReadEventFast(ok.data(), ok.size(), e, &consumed), FastReadResult::kOk);
  EXPECT_EQ(consumed, ok.find(" trailing"));
  EXPECT_EQ(e.args.device, 3);
  EXPECT_EQ(e.ts, "1.5");
  for (size_t cut = 1; cut < ok.find(" trailing"); ++cut) {
    EXPECT_EQ(ReadEventFast(ok.data(), cut, e, &consumed), FastReadResult::kIncomplete) << cut;
  }
  std::string broken = R"({"ph": "X", "dur": , "ts": 1})";
  EXPECT_EQ(ReadEventFast(broken.data(), broken.size(), e, &consumed), FastReadResult::kDeclined);
}

TEST(KinetoFastReaderTest, TimesReadStraightToNsEqualTheExactParser) {
  const std::vector<std::string> texts = {"0",
                                          "7",
                                          "-4",
                                          "1.5",
                                          "1234.567",
                                          "1234.5678999",
                                          "0.0001",
                                          "-2.25",
                                          "1.",
                                          "1e3",
                                          "1.5E-2",
                                          "\"12.5\"",
                                          "-",
                                          ".5",
                                          "1606910596297023.125",
                                          "9223372036854775",
                                          "99999999999999999",
                                          "9223372036854.775807",
                                          "00012.000"};
  size_t straight = 0;
  for (const std::string& text : texts) {
    std::string json = "{\"ph\": \"X\", \"ts\": " + text + ", \"dur\": " + text + "}";
    KinetoEvent e;
    size_t consumed = 0;
    if (ReadEventFast(json.data(), json.size(), e, &consumed) != FastReadResult::kOk) continue;
    ExpectTimesAsTheExactParser(e, json);
    straight += e.ts_ns_known ? 1 : 0;
    // Plain shapes are converted while scanning; every other shape keeps its text.
    EXPECT_TRUE(e.ts_ns_known || !e.ts.empty()) << json;
  }
  EXPECT_GE(straight, 10u);
}

TEST(KinetoFastReaderTest, AgreesWithSimdjsonOnEveryRealEvent) {
  std::filesystem::path root = std::filesystem::path(GPUWHY_SHARED_DATA) / "kineto";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "../shared/data/kineto is absent";
  size_t total = 0;
  size_t fast = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    auto source = OpenByteSource(entry.path().string());
    ASSERT_TRUE(source.ok());
    ElementCollector collector;
    JsonEventSplitter splitter(**source, 1 << 20);
    ASSERT_TRUE(splitter.Run(collector).ok());
    total += collector.elements.size();
    fast += CompareOn(collector.elements, entry.path().string());
  }
  // Nearly every real event takes the fast path (escaped names are the exception).
  EXPECT_GT(fast, total * 9 / 10) << fast << " of " << total;
}

}  // namespace kineto_fast_reader_test
}  // namespace gpuwhy
