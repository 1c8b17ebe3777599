// The `dcgmi dmon` text importer on hand-written output in the documented layout (DCGM user
// guide, "dcgmi dmon"): the header and its "ID" line, reprinted headers, N/A cells, entities
// that are not whole GPUs, bad rows.
#include <gtest/gtest.h>

#include "ingest/metrics/metric_log.h"

namespace gpuwhy {
namespace dcgmi_dmon_importer_test {

constexpr const char* kFixture =
    "#Entity   GRACT   SMACT   SMOCC   TENSO   DRAMA\n"
    "ID\n"
    "GPU 0     0.953   0.812   0.401   0.350   0.200\n"
    "GPU 1     N/A     N/A     N/A     N/A     N/A\n"
    "GPU 0     0.947   0.788   0.399   0.330   0.220\n"
    "GPU 1     0.100   0.050   0.020   0.000   0.010\n"
    "#Entity   GRACT   SMACT   SMOCC   TENSO   DRAMA\n"
    "ID\n"
    "GPU 0     0.950   0.800   0.400   0.340   0.210\n"
    "GPU-I 3   0.500   0.400   0.300   0.200   0.100\n";

TEST(DcgmiDmonTest, RowsBecomeSeriesUnderTheDcgmIds) {
  EXPECT_EQ(SniffMetricLog(kFixture), MetricLogFormat::kDcgmiDmon);
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(kFixture, "dmon.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->source, "dcgmi dmon");
  EXPECT_TRUE(set->times_synthesized);
  EXPECT_EQ(set->nominal_interval_ns, kNsPerSec);
  EXPECT_EQ(set->DeviceIndices(), (std::vector<int32_t>{0, 1}));
  const MetricSeries* sm0 = set->Find("gpu.sm_active_pct", 0);
  ASSERT_NE(sm0, nullptr);
  ASSERT_EQ(sm0->size(), 3u);
  EXPECT_NEAR(sm0->Mean(), (81.2 + 78.8 + 80.0) / 3, 1e-9);  // ratios x 100
  EXPECT_EQ(sm0->time, (std::vector<TimeNs>{0, kNsPerSec, 2 * kNsPerSec}));
  EXPECT_NEAR(set->Find("gpu.gr_engine_active_pct", 0)->value[0], 95.3, 1e-9);
  EXPECT_NEAR(set->Find("gpu.sm_occupancy_pct", 0)->value[0], 40.1, 1e-9);
  EXPECT_NEAR(set->Find("gpu.tensor_active_pct", 0)->value[1], 33.0, 1e-9);
  EXPECT_NEAR(set->Find("gpu.dram_active_pct", 0)->value[2], 21.0, 1e-9);
  // GPU 1's first row is all N/A: not sampled, its second row is its first sample.
  const MetricSeries* sm1 = set->Find("gpu.sm_active_pct", 1);
  ASSERT_NE(sm1, nullptr);
  ASSERT_EQ(sm1->size(), 1u);
  EXPECT_EQ(sm1->time[0], kNsPerSec);
  EXPECT_NEAR(sm1->value[0], 5.0, 1e-9);
  EXPECT_EQ(set->problems.Get(DataProblem::kUnmappedMetric), 1);  // GPU-I 3
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 0);
}

TEST(DcgmiDmonTest, BadRowsUnknownFieldsAndEmptyInput) {
  const char* text =
      "#Entity   SMACT   NEWFD\n"
      "ID\n"
      "GPU 0     0.5     7\n"
      "GPU 0     half    7\n"
      "GPU x     0.5     7\n"
      "GPU 0     0.5\n"
      "GPU 0     0.7     7\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "dmon.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->problems.Get(DataProblem::kUnmappedMetric), 1);  // NEWFD
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 3);
  EXPECT_EQ(set->Find("gpu.sm_active_pct", 0)->size(), 2u);
  EXPECT_DOUBLE_EQ(set->Find("gpu.sm_active_pct", 0)->Mean(), 60);

  StatusOr<MetricSeriesSet> header_only =
      ParseMetricLogText("#Entity   SMACT\nID\nGPU 0   N/A\n", "dmon.txt");
  ASSERT_FALSE(header_only.ok());
  EXPECT_EQ(header_only.status().message().rfind("dmon.txt: ", 0), 0u)
      << header_only.status().message();
  EXPECT_EQ(SniffMetricLog("GPU 0 0.5\n"), MetricLogFormat::kNone);
}

}  // namespace dcgmi_dmon_importer_test
}  // namespace gpuwhy
