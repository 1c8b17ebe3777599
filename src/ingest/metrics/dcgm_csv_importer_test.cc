// The DCGM field CSV importer on tiny hand-written files: per-entity series under the
// dcgm-exporter ids, a bad line, an unknown column, an empty file, a cut last line.
#include <gtest/gtest.h>

#include <set>

#include "ingest/metrics/dcgm_fields.h"
#include "ingest/metrics/metric_log.h"

namespace gpuwhy {
namespace dcgm_csv_importer_test {

TEST(DcgmCsvTest, EntitiesBecomeDevicesWithTheExporterIds) {
  const char* text =
      "EntityId,GRACT,FBUSD,TimeStamp\n"
      "0,0.250,1520,1661756603\n"
      "1,0.500,N/A,1661756603\n"
      "0,0.750,1600,1661756604\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "dcgm.csv");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->source, "DCGM field CSV");
  EXPECT_EQ(set->DeviceIndices(), (std::vector<int32_t>{0, 1}));
  const MetricSeries* gr0 = set->Find("gpu.gr_engine_active_pct", 0);
  ASSERT_NE(gr0, nullptr);
  ASSERT_EQ(gr0->size(), 2u);
  EXPECT_DOUBLE_EQ(gr0->Mean(), 50);  // ratios x 100, as from dcgm-exporter
  EXPECT_EQ(gr0->unit, "%");
  EXPECT_EQ(gr0->time[0], 1661756603 * kNsPerSec);
  EXPECT_EQ(gr0->time[1] - gr0->time[0], kNsPerSec);
  EXPECT_DOUBLE_EQ(set->Find("gpu.mem_used_mib", 0)->Mean(), 1560);
  EXPECT_EQ(set->Find("gpu.mem_used_mib", 1), nullptr);  // N/A: never sampled
  EXPECT_EQ(set->Find("gpu.gr_engine_active_pct", 1)->size(), 1u);
  EXPECT_FALSE(set->times_synthesized);
  EXPECT_TRUE(set->problems.empty());
}

TEST(DcgmCsvTest, BadLineAndUnknownColumnAreIssues) {
  const char* text =
      "EntityId,SMACT,NEWFLD,POWER,TimeStamp\n"
      "0,0.1,7,100.5,1700000000\n"
      "0,zero,7,100.5,1700000001\n"
      "x,0.2,7,101.5,1700000002\n"
      "0,0.3,7,102.5,1700000003\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "dcgm.csv");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->problems.Get(DataProblem::kUnmappedMetric), 1);
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 2);
  std::set<std::string> details;
  for (DataProblem kind : set->problems.Kinds()) {
    for (const std::string& detail : set->problems.Details(kind)) details.insert(detail);
  }
  EXPECT_TRUE(details.count("line 1: NEWFLD"));
  EXPECT_TRUE(details.count("line 3: SMACT value 'zero' is not a number"));
  const MetricSeries* sm = set->Find("gpu.sm_active_pct", 0);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->size(), 2u);
  EXPECT_DOUBLE_EQ(sm->Mean(), 20);
  EXPECT_DOUBLE_EQ(set->Find("gpu.power_w", 0)->Mean(), 101.5);
}

TEST(DcgmCsvTest, CutLastLineIsAnIssueNotASample) {
  // Cut inside a row: too few fields. Cut inside the last column: a time before the last.
  StatusOr<MetricSeriesSet> short_row =
      ParseDcgmCsv("EntityId,GRACT,FBUSD,TimeStamp\n0,0.5,10,1700000000\n0,0.9", "cut.csv");
  ASSERT_TRUE(short_row.ok()) << short_row.status().message();
  EXPECT_EQ(short_row->problems.Get(DataProblem::kUnparsedLine), 1);
  EXPECT_EQ(short_row->problems.Detail(DataProblem::kUnparsedLine),
            "line 3: expected 4 fields, got 2");
  EXPECT_EQ(short_row->Find("gpu.gr_engine_active_pct", 0)->size(), 1u);

  StatusOr<MetricSeriesSet> short_time =
      ParseDcgmCsv("EntityId,GRACT,TimeStamp\n0,0.5,1700000000\n0,0.9,17000", "cut.csv");
  ASSERT_TRUE(short_time.ok()) << short_time.status().message();
  EXPECT_EQ(short_time->problems.Get(DataProblem::kBadTimestamp), 1);
  EXPECT_NE(short_time->problems.Detail(DataProblem::kBadTimestamp).find("line 3: "),
            std::string::npos);
  EXPECT_EQ(short_time->Find("gpu.gr_engine_active_pct", 0)->size(), 1u);
}

TEST(DcgmCsvTest, EmptyOrSampleLessFilesAreErrorsNamingThePath) {
  StatusOr<MetricSeriesSet> empty = ParseDcgmCsv("", "empty.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message().rfind("empty.csv: ", 0), 0u) << empty.status().message();
  EXPECT_FALSE(ParseMetricLogText("", "empty.csv").ok());  // not sniffed as any metric log

  StatusOr<MetricSeriesSet> header_only = ParseMetricLogText("EntityId,GRACT\n", "h.csv");
  ASSERT_FALSE(header_only.ok());
  EXPECT_EQ(header_only.status().message().rfind("h.csv: no sample", 0), 0u)
      << header_only.status().message();

  StatusOr<MetricSeriesSet> blanks =
      ParseMetricLogText("EntityId,FBUSD,TimeStamp\n0,N/A,1700000000\n", "b.csv");
  EXPECT_FALSE(blanks.ok());
}

TEST(DcgmCsvTest, TimeStampUnitsAndNoTimeStamp) {
  StatusOr<MetricSeriesSet> us = ParseDcgmCsv(
      "EntityId,GPUTL,TimeStamp\n0,10,1700000000123456\n0,20,1700000001123456\n", "us.csv");
  ASSERT_TRUE(us.ok()) << us.status().message();
  EXPECT_EQ(us->Find("gpu.util_pct", 0)->time[0], 1700000000123456 * 1000);

  StatusOr<MetricSeriesSet> none = ParseDcgmCsv("EntityId,GPUTL\n0,10\n1,5\n0,30\n", "n.csv");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->times_synthesized);
  EXPECT_EQ(none->Find("gpu.util_pct", 0)->time[1], kNsPerSec);
}

TEST(DcgmFieldsTest, ShortNamesAreUniqueAndNameTheExporterField) {
  std::set<std::string_view> names, short_names;
  for (const DcgmField& f : DcgmFields()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(f.short_name.empty() || short_names.insert(f.short_name).second) << f.short_name;
  }
  ASSERT_NE(FindDcgmFieldByShortName("FBUSD"), nullptr);
  EXPECT_EQ(FindDcgmFieldByShortName("FBUSD"), FindDcgmField("DCGM_FI_DEV_FB_USED"));
  EXPECT_EQ(FindDcgmFieldByShortName("GRACT"), FindDcgmField("DCGM_FI_PROF_GR_ENGINE_ACTIVE"));
  EXPECT_EQ(FindDcgmFieldByShortName(""), nullptr);
  for (std::string_view s : {"GPUTL", "MCUTL", "SMACT", "SMOCC", "TENSO", "DRAMA", "PCITX", "PCIRX",
                             "POWER", "SMCLK", "MMCLK", "TMPTR", "FBFRE", "FBTTL"}) {
    const DcgmField* f = FindDcgmFieldByShortName(s);
    ASSERT_NE(f, nullptr) << s;
    EXPECT_EQ(f->short_name, s);
  }
}

}  // namespace dcgm_csv_importer_test
}  // namespace gpuwhy
