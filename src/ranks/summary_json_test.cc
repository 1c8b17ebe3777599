#include "ranks/summary_json.h"

#include <gtest/gtest.h>

#include "ranks/rank_summary_example.h"

namespace gpuwhy {
namespace summary_json_test {

RankSummary Example() { return ranks_test::ExampleRankSummary(); }

TEST(SummaryJsonTest, RoundTripsEveryField) {
  RankSummary in = Example();
  std::string json = RenderRankSummaryJson(in);
  ASSERT_EQ(json.rfind("{\"gpuwhy_rank_summary\":1", 0), 0u) << json.substr(0, 60);
  StatusOr<RankSummary> out = ParseRankSummaryJson(json, "x.json");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->path, in.path);
  EXPECT_EQ(out->rank, 3);
  EXPECT_EQ(out->rank_source, RankSource::kFileName);
  EXPECT_EQ(out->world_size, 8);
  EXPECT_EQ(out->device_name, in.device_name);
  ASSERT_EQ(out->metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(out->MetricValue("step.time_median_ms", 0), 12.5);
  ASSERT_EQ(out->steps.size(), 1u);
  EXPECT_EQ(out->steps[0].start, in.steps[0].start);
  EXPECT_EQ(out->steps[0].input_wait_ns, 250'000);
  ASSERT_EQ(out->collectives.size(), 2u);
  EXPECT_EQ(out->collectives[0].end, in.collectives[0].end);
  EXPECT_EQ(out->collectives[0].bytes, 26214400);
  EXPECT_EQ(out->collectives[0].compute_before_ns, 8'000'000);
  EXPECT_EQ(out->collectives[1].step, kNoValue);
  EXPECT_EQ(out->collectives[1].bytes, kNoValue);
  ASSERT_EQ(out->kernels.size(), 1u);
  EXPECT_EQ(out->kernels[0].count, 120);
  ASSERT_EQ(out->findings.size(), 1u);
  EXPECT_EQ(out->findings[0].recoverable_ns_per_step, 7'000'000);
}

TEST(SummaryJsonTest, RefusesOtherVersionsAndOtherDocuments) {
  std::string json = RenderRankSummaryJson(Example());
  json.replace(json.find(":1,"), 3, ":2,");
  StatusOr<RankSummary> newer = ParseRankSummaryJson(json, "r.json");
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find("r.json: rank summary format 2"), std::string::npos);
  StatusOr<RankSummary> trace = ParseRankSummaryJson(R"({"traceEvents": []})", "t.json");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.status().message().find("not a gpuwhy rank summary"), std::string::npos);
  StatusOr<RankSummary> broken = ParseRankSummaryJson(R"({"gpuwhy_rank_summary": 1, )", "b.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message().rfind("b.json: not valid JSON", 0), 0u);
}

// issue 21: an element that is not an object threw simdjson_error (incorrect type).
TEST(SummaryJsonTest, AnArrayElementThatIsNotAnObjectIsAnError) {
  StatusOr<RankSummary> odd =
      ParseRankSummaryJson(R"({"gpuwhy_rank_summary": 1, "metrics": [{"id": "a"}, 7]})", "o.json");
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(), "o.json: \"metrics\"[1] is not an object");
}

}  // namespace summary_json_test
}  // namespace gpuwhy
