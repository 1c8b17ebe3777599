#include "model/metric_series.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace metric_series_test {

TEST(MetricSeriesTest, StatisticsOverSamples) {
  MetricSeries s;
  for (double v : {10.0, 90.0, 5.0, 95.0}) s.Add(static_cast<TimeNs>(s.size()) * kNsPerSec, v);
  EXPECT_DOUBLE_EQ(s.Mean(), 50.0);
  EXPECT_DOUBLE_EQ(s.Max(), 95.0);
  EXPECT_DOUBLE_EQ(s.Min(), 5.0);
  EXPECT_DOUBLE_EQ(s.PercentBelow(20), 50.0);
  EXPECT_DOUBLE_EQ(s.PercentAbove(90), 25.0);
}

TEST(MetricSeriesTest, SetFindsByKeyAndSpansAllSeries) {
  MetricSeriesSet set;
  set.Add({"gpu.util_pct", 1, ""}, "%", 5, 40);
  set.Add({"gpu.util_pct", 0, ""}, "%", 2, 30);
  set.Add({"gpu.process_sm_pct", 0, "pid 7"}, "%", 9, 3);
  ASSERT_NE(set.Find("gpu.util_pct", 1), nullptr);
  EXPECT_EQ(set.Find("gpu.util_pct", 2), nullptr);
  EXPECT_EQ(set.FindAll("gpu.util_pct").size(), 2u);
  EXPECT_EQ(set.FindAll("gpu.process_sm_pct", 0).size(), 1u);
  EXPECT_EQ(set.DeviceIndices(), (std::vector<int32_t>{0, 1}));
  ASSERT_TRUE(set.Span().has_value());
  EXPECT_EQ(set.Span()->first, 2);
  EXPECT_EQ(set.Span()->second, 9);
  EXPECT_EQ(set.sample_count(), 3u);
  set.problems.Add(DataProblem::kUnparsedLine, "line 3: x");
  set.problems.Add(DataProblem::kUnparsedLine, "line 9: y");
  EXPECT_EQ(set.problems.Get(DataProblem::kUnparsedLine), 2);
  EXPECT_EQ(set.problems.Detail(DataProblem::kUnparsedLine), "line 3: x");
}

}  // namespace metric_series_test
}  // namespace gpuwhy
