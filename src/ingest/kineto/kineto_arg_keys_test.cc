// The argument table: every row is found, and both walkers (the fast reader and the simdjson
// parser) read every key into the same field, the same way.
#include "ingest/kineto/kineto_arg_keys.h"

#include <gtest/gtest.h>

#include <string>

#include <simdjson.h>

#include "ingest/kineto/kineto_event_parser.h"
#include "ingest/kineto/kineto_fast_reader.h"
#include "ingest/kineto/kineto_test_util.h"

namespace gpuwhy {
namespace kineto_arg_keys_test {

using kineto_test::Describe;

TEST(KinetoArgKeysTest, FindsEveryRowAndNoOtherKey) {
  for (const KinetoArgKey& row : kKinetoArgKeys)
    EXPECT_EQ(FindKinetoArgKey(row.key), &row) << row.key;
  for (std::string_view other : {"", "Seq", "devic", "devices", "Device", "external Id", "grid ",
                                 "Input DIMS", "wait_on_cuda_event_record_corr_idx"}) {
    EXPECT_EQ(FindKinetoArgKey(other), nullptr) << other;
  }
  EXPECT_EQ(FindKinetoArgKey(std::string(200, 'x')), nullptr);
}

// A value of each kind and the field text it must give.
struct Sample {
  std::string_view json;
  std::string_view field;
};

Sample SampleFor(KinetoArgRead read) {
  switch (read) {
    case KinetoArgRead::kInt: return {"-123456789012", "-123456789012"};
    case KinetoArgRead::kInt32: return {"4242", "4242"};
    case KinetoArgRead::kFloat: return {"12.5", "12.500000"};
    case KinetoArgRead::kIntTriple: return {"[7, 8, 9]", "7,8,9"};
    case KinetoArgRead::kString: return {R"("some text")", "some text"};
    case KinetoArgRead::kRawJson: return {R"([[1, 2], ["float"]])", R"([[1, 2], ["float"]])"};
  }
  return {};
}

std::string FieldText(const KinetoArgKey& row, KinetoArgs& a) {
  switch (row.read) {
    case KinetoArgRead::kInt: return std::to_string(row.FieldOf<int64_t>(a));
    case KinetoArgRead::kInt32: return std::to_string(row.FieldOf<int32_t>(a));
    case KinetoArgRead::kFloat: return std::to_string(row.FieldOf<float>(a));
    case KinetoArgRead::kIntTriple: {
      const auto& t = row.FieldOf<std::array<int32_t, 3>>(a);
      return std::to_string(t[0]) + "," + std::to_string(t[1]) + "," + std::to_string(t[2]);
    }
    case KinetoArgRead::kString:
    case KinetoArgRead::kRawJson: return std::string(row.FieldOf<std::string_view>(a));
  }
  return {};
}

TEST(KinetoArgKeysTest, BothWalkersReadEveryKeyAlike) {
  KinetoEventParser parser;
  for (const KinetoArgKey& row : kKinetoArgKeys) {
    Sample sample = SampleFor(row.read);
    std::string json = R"({"ph": "X", "name": "k", "args": {"other": 1, ")" + std::string(row.key) +
                       R"(": )" + std::string(sample.json) + R"(, "last": "x"}, "ts": 1})";
    std::string padded = json + std::string(simdjson::SIMDJSON_PADDING, ' ');
    KinetoEvent fast;
    size_t consumed = 0;
    ASSERT_EQ(ReadEventFast(padded.data(), json.size(), fast, &consumed), FastReadResult::kOk)
        << json;
    EXPECT_EQ(consumed, json.size()) << json;
    KinetoEvent parsed;
    ASSERT_TRUE(parser.Parse(std::string_view(padded.data(), json.size()), parsed)) << json;
    EXPECT_EQ(FieldText(row, fast.args), sample.field) << json;
    EXPECT_EQ(FieldText(row, parsed.args), sample.field) << json;
    EXPECT_EQ(Describe(fast), Describe(parsed)) << json;
  }
}

}  // namespace kineto_arg_keys_test
}  // namespace gpuwhy
