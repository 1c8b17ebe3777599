// The metric-log importers on small inline logs covering the variants the real files do not:
// dmon -o DT with a repeated header, bad lines, pmon with idle GPUs, query-gpu without header
// or units, several dcgm scrapes.
#include <gtest/gtest.h>

#include <set>

#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace metric_log_test {

TEST(DmonTest, DateTimeColumnsRepeatedHeaderAndBadLine) {
  const char* text =
      "#Date       Time        gpu    pwr  gtemp     sm    mem   mclk   pclk\n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %    MHz    MHz\n"
      " 20230815   10:43:21      0     63     36     90      5    877    345\n"
      " 20230815   10:43:21      1     60     35      -      5    877    345\n"
      " 20230815   10:43:22      0     63     36     10      5    877    345\n"
      "garbage\n"
      "#Date       Time        gpu    pwr  gtemp     sm    mem   mclk   pclk\n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %    MHz    MHz\n"
      " 20230815   10:43:23      0     63     36     70      5    877    345\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "dmon.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->source, "nvidia-smi dmon");
  const MetricSeries* sm0 = set->Find("gpu.util_pct", 0);
  ASSERT_NE(sm0, nullptr);
  ASSERT_EQ(sm0->size(), 3u);
  EXPECT_EQ(sm0->time[1] - sm0->time[0], kNsPerSec);
  EXPECT_EQ(sm0->time[0], 1692096201 * kNsPerSec);   // date -u -d '2023-08-15 10:43:21' +%s
  EXPECT_EQ(set->Find("gpu.util_pct", 1), nullptr);  // "-": never sampled
  EXPECT_EQ(set->Find("gpu.power_w", 1)->size(), 1u);
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 1);
  EXPECT_NE(set->problems.Detail(DataProblem::kUnparsedLine).find("line 6"), std::string::npos);
  EXPECT_FALSE(set->times_synthesized);
}

TEST(DmonTest, NoHeaderIsAnError) {
  StatusOr<MetricSeriesSet> set = ParseDmonText("    0   111    83    25\n", "x.txt");
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("x.txt: "), std::string::npos);
}

TEST(PmonTest, ProcessesPerSampleAndIdleGpus) {
  const char* text =
      "# gpu         pid   type     sm    mem    enc    dec    command\n"
      "# Idx           #    C/G      %      %      %      %    name\n"
      "    0       4242     C     80     10      -      -    python\n"
      "    0       4300     C      -      -      -      -    memhog\n"
      "    1          -     -      -      -      -      -    -\n"
      "    0       4242     C     60     10      -      -    python\n"
      "    0       4300     C      5      -      -      -    memhog\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "pmon.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->source, "nvidia-smi pmon");
  EXPECT_EQ(set->FindAll("gpu.process_seen", 0).size(), 2u);
  EXPECT_TRUE(set->FindAll("gpu.process_seen", 1).empty());
  const MetricSeries* sm = set->Find("gpu.process_sm_pct", 0, "pid 4242");
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->label, "python");
  EXPECT_DOUBLE_EQ(sm->Mean(), 70);
  EXPECT_EQ(set->Find("gpu.process_sm_pct", 0, "pid 4300")->size(), 1u);
}

TEST(QueryGpuTest, NoHeaderTakesFieldsFromTheCommandLine) {
  const char* text =
      "$ nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total,"
      "clocks_event_reasons.active --format=csv,noheader,nounits -l 1\n"
      "2024/01/02 03:04:05.000, 0, 97, 70000, 81559, 0x0000000000000004\n"
      "2024/01/02 03:04:05.000, 1, 3, 100, 81559, 0x0000000000000000\n"
      "2024/01/02 03:04:06.000, 0, 95, 71000, 81559, 0x0000000000000004\n"
      "2024/01/02 03:04:06.000, 1, [N/A], 100, 81559, 0x0000000000000000\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "q.csv");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->Find("gpu.util_pct", 0)->size(), 2u);
  EXPECT_EQ(set->Find("gpu.util_pct", 1)->size(), 1u);
  EXPECT_DOUBLE_EQ(set->Find("gpu.throttle_reasons", 0)->value[0], 4.0);
  EXPECT_DOUBLE_EQ(set->Find("gpu.mem_used_mib", 0)->Mean(), 70500);
}

TEST(QueryGpuTest, HeaderWithUnitsAndWithoutIndex) {
  const char* text =
      "uuid, utilization.gpu [%], power.draw [W]\n"
      "GPU-a, 50 %, 100.5 W\n"
      "GPU-b, 40 %, 90.0 W\n"
      "GPU-a, 60 %, 101.5 W\n"
      "GPU-b, 41 %\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "q.csv");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_DOUBLE_EQ(set->Find("gpu.util_pct", 0)->Mean(), 55);
  EXPECT_DOUBLE_EQ(set->Find("gpu.power_w", 0)->Mean(), 101);
  EXPECT_EQ(set->Device(1)->uuid, "GPU-b");
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 1);
  EXPECT_TRUE(set->times_synthesized);
}

TEST(QueryGpuTest, RowsWithoutAnyFieldListAreAnError) {
  StatusOr<MetricSeriesSet> set = ParseQueryGpuCsv("2024/01/02 03:04:05.000, 0, 97\n", "q.csv");
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("line 1"), std::string::npos);
}

TEST(DcgmTest, ScrapesProfilingRatiosAndMig) {
  const char* text =
      "# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned\n"
      "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n"
      "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-x\",modelName=\"NVIDIA A100\"} 0.25\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-x\"} 99\n"
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"1\",GPU_I_ID=\"3\"} 0.5 1700000000000\n"
      "DCGM_FI_DEV_SOMETHING_NEW{gpu=\"0\"} 1\n"
      "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-x\",modelName=\"NVIDIA A100\"} 0.35\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-x\"} 97\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 97\n";
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(text, "metrics.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  const MetricSeries* sm = set->Find("gpu.sm_active_pct", 0);
  ASSERT_NE(sm, nullptr);
  ASSERT_EQ(sm->size(), 2u);
  EXPECT_DOUBLE_EQ(sm->Mean(), 30);
  EXPECT_EQ(sm->time[1], kNsPerSec);
  const MetricSeries* tensor = set->Find("gpu.tensor_active_pct", 1, "gi 3");
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(tensor->time[0], 1700000000000 * kNsPerMs);
  EXPECT_EQ(set->Device(0)->name, "NVIDIA A100");
  EXPECT_EQ(set->problems.Get(DataProblem::kUnmappedMetric), 1);
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 1);
}

TEST(MetricLogTest, EveryFormatHasOneRowAndAName) {
  std::set<MetricLogFormat> seen;
  for (const MetricLogFormatSpec& spec : MetricLogFormats()) {
    EXPECT_TRUE(seen.insert(spec.format).second) << spec.name;
    EXPECT_EQ(MetricLogFormatName(spec.format), spec.name);
  }
  EXPECT_EQ(MetricLogFormatName(MetricLogFormat::kNone), "none");
}

TEST(MetricLogTest, AHeaderOfFieldNamesCountsOnlyWhenNothingElseMatches) {
  EXPECT_EQ(SniffMetricLog("timestamp, index\n"), MetricLogFormat::kQueryGpuCsv);
  EXPECT_EQ(SniffMetricLog("timestamp, index\n# gpu pwr\n"), MetricLogFormat::kDmon);
}

TEST(MetricLogTest, TracesAndProseAreNotMetricLogs) {
  EXPECT_EQ(SniffMetricLog("{\"traceEvents\": []}"), MetricLogFormat::kNone);
  EXPECT_EQ(SniffMetricLog("hello\nworld\n"), MetricLogFormat::kNone);
  EXPECT_FALSE(ParseMetricLogText("hello\n", "x").ok());
}

}  // namespace metric_log_test
}  // namespace gpuwhy

namespace gpuwhy {
namespace metric_log_test {

// Found by the fuzzer: a pmon header without a pid column indexed field -1, and one whose
// command column is not last let a row one field short index past its end (a crash).
TEST(PmonTest, AHeaderWithoutAColumnOrARowShortOfOneNeverReadsPastTheRow) {
  StatusOr<MetricSeriesSet> no_pid =
      ParsePmonText("# gpu   sm   mem   command\n    0    5     6   python\n", "pmon.txt");
  ASSERT_TRUE(no_pid.ok()) << no_pid.status().message();
  EXPECT_TRUE(no_pid->empty());  // no process to attribute the counters to
  StatusOr<MetricSeriesSet> short_row =
      ParsePmonText("# gpu   pid   sm   command   type\n    0   42   5   python\n", "pmon.txt");
  ASSERT_TRUE(short_row.ok()) << short_row.status().message();
  const MetricSeries* seen = short_row->Find("gpu.process_seen", 0, "pid 42");
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->value, std::vector<double>{0});  // no type field: not known as compute
}

// A GPU index or pid no integer holds (1e300, inf) is a bad line, not an undefined cast.
TEST(DmonTest, AnIndexNoIntegerHoldsIsAnUnparsedLine) {
  StatusOr<MetricSeriesSet> set =
      ParseDmonText("# gpu    sm\n# Idx     %\n 1e300    5\n inf    5\n    0    7\n", "dmon.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 2) << set->problems.Describe();
  ASSERT_NE(set->Find("gpu.util_pct", 0), nullptr);
}

// Found by the fuzzer: a log whose clock goes back gave a series with decreasing times (the
// model promises non-decreasing); the front door now orders them and counts the step back.
TEST(MetricLogTest, SamplesOfALogWhoseClockWentBackArePutInTimeOrder) {
  StatusOr<MetricSeriesSet> set = ParseMetricLogText(
      "#Date       Time        gpu     sm\n"
      "#YYYYMMDD   HH:MM:SS    Idx      %\n"
      " 20230815   10:43:22      0     90\n"
      " 20230815   10:43:21      0     10\n"
      " 20230815   10:43:23      0     70\n",
      "dmon.txt");
  ASSERT_TRUE(set.ok()) << set.status().message();
  const MetricSeries* sm = set->Find("gpu.util_pct", 0);
  ASSERT_NE(sm, nullptr);
  EXPECT_TRUE(std::is_sorted(sm->time.begin(), sm->time.end()));
  EXPECT_EQ(sm->value, (std::vector<double>{10, 90, 70}));
  EXPECT_EQ(set->problems.Get(DataProblem::kBadTimestamp), 1);
  EXPECT_NE(set->problems.Detail(DataProblem::kBadTimestamp).find("clock went back"),
            std::string::npos);
}

}  // namespace metric_log_test
}  // namespace gpuwhy

namespace gpuwhy {
namespace metric_log_test {

// Found by the metric-log fuzzer under UBSan: a date in the year 1 (dmon -o DT, --query-gpu)
// and a DCGM TimeStamp of 9661796909 s overflowed int64 nanoseconds (undefined behaviour); a
// time that int64 nanoseconds cannot hold is now no time.
TEST(MetricLogTest, ATimeBeyondWhatNanosecondsHoldIsNoTime) {
  StatusOr<MetricSeriesSet> dmon = ParseDmonText(
      "#Date       Time        gpu     sm\n"
      "#YYYYMMDD   HH:MM:SS    Idx      %\n"
      " 00010101   10:43:22      0     90\n"
      " 20230815   10:43:23      0     70\n",
      "dmon.txt");
  ASSERT_TRUE(dmon.ok()) << dmon.status().message();
  EXPECT_EQ(dmon->problems.Get(DataProblem::kBadTimestamp), 1);
  StatusOr<MetricSeriesSet> dcgm = ParseDcgmCsv(
      "EntityId,GRACT,TimeStamp\n0,0.250,9661796909\n0,0.500,1661756604\n", "dcgm.csv");
  ASSERT_TRUE(dcgm.ok()) << dcgm.status().message();
  const MetricSeries* gr = dcgm->Find("gpu.gr_engine_active_pct", 0);
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->size(), 1u);
}

}  // namespace metric_log_test
}  // namespace gpuwhy
