// GPU_METRICS into binned per-device series: the synthetic writer's samples come back bin for
// bin, and odd tables (no names, unknown names, NULLs, rows out of order) are counted.
#include <gtest/gtest.h>

#include "ingest/nsys/nsys_importer.h"
#include "ingest/nsys/nsys_test_util.h"
#include "model/gpu_metric_bins.h"
#include "synth/kineto_writer.h"
#include "synth/nsys_writer.h"

namespace gpuwhy {
namespace nsys_gpu_metrics_test {

using nsys_test::kBaseSchema;
using nsys_test::ScratchDir;
using nsys_test::WriteDatabase;

const GpuMetricBins* Find(const std::vector<GpuMetricBins>& all, std::string_view metric,
                          int32_t device = 0) {
  for (const GpuMetricBins& b : all) {
    if (b.metric == metric && b.device == device) return &b;
  }
  return nullptr;
}

StatusOr<Trace> ImportOne(const std::string& path) {
  auto traces = ImportNsysSqlite(path);
  if (!traces.ok()) return traces.status();
  if (traces->size() != 1) return InvalidArgument("{} traces", traces->size());
  return std::move(traces->front());
}

TEST(NsysGpuMetricsTest, SyntheticSamplesComeBackBinForBin) {
  ScratchDir dir;
  const std::string path = dir.File("metrics.sqlite");
  // A full-device GEMM over bins 10 and 11 (1.0-1.2 ms), a 33-block GEMM over bin 13 and an
  // elementwise kernel over half of bin 14.
  KernelSpec full = MakeKernelSpec("sm90_xmma_gemm_bf16_full", 132, 384, 168, 0, 1, 12, 0);
  KernelSpec small = MakeKernelSpec("sm90_xmma_gemm_bf16_small", 33, 128, 168, 0, 0.25, 1, 2);
  KernelSpec add = MakeKernelSpec("vectorized_elementwise_kernel", 264, 128, 32, 0, 2, 8, 100);
  {
    NsysWriter writer(path, NsysWriter::GpuMetrics::kOn);
    DocumentInfo info;
    info.pid = 100;
    writer.Begin(info);
    writer.Kernel(full, 0, 7, 1'000'000, 200'000, 1, 1);
    writer.Kernel(small, 0, 7, 1'300'000, 100'000, 2, 2);
    writer.Kernel(add, 0, 7, 1'400'000, 50'000, 3, 3);
    ASSERT_TRUE(writer.Finish(1'000'000, 1'600'000).ok());
  }
  auto trace = ImportOne(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->metadata.extra.at(std::string(kGpuMetricsSourceKey)), "nsys GPU_METRICS");
  EXPECT_EQ(trace->problems.Get(DataProblem::kUnmappedMetric), 0);
  EXPECT_EQ(trace->problems.Get(DataProblem::kBadValue), 0);
  EXPECT_EQ(trace->problems.Get(DataProblem::kBadTimestamp), 0);
  const std::vector<GpuMetricBins> all = ReadGpuMetricBins(*trace);
  ASSERT_EQ(all.size(), 7u);  // GR, SM active, SM issue, tensor, DRAM read/write, warps
  const GpuMetricBins* sm = Find(all, gpu_metric::kSmActive);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->bin_ns, 100'000);
  const std::vector<TimeNs> starts = {1'000'000, 1'100'000, 1'200'000,
                                      1'300'000, 1'400'000, 1'500'000};
  EXPECT_EQ(sm->start, starts);
  EXPECT_EQ(sm->value, (std::vector<double>{100, 100, 0, 25, 50, 0}));
  EXPECT_EQ(Find(all, gpu_metric::kGrActive)->value,
            (std::vector<double>{100, 100, 0, 100, 50, 0}));
  EXPECT_EQ(Find(all, gpu_metric::kTensorActive)->value,
            (std::vector<double>{80, 80, 0, 20, 0, 0}));
  EXPECT_EQ(Find(all, gpu_metric::kDramReadBw)->value, (std::vector<double>{20, 20, 0, 20, 30, 0}));
  // Time-weighted mean over 1.0-1.4 ms: (100 + 100 + 0 + 25) / 4.
  auto [mean, covered] = sm->MeanOver(1'000'000, 1'400'000);
  EXPECT_DOUBLE_EQ(mean, 56.25);
  EXPECT_EQ(covered, 400'000);
}

// One process with one kernel, and GPU_METRICS rows given by |rows|.
std::string WithMetrics(const std::string& names_table, const std::string& rows) {
  const int64_t pid = (int64_t{1} << 48) | (int64_t{100} << 24);
  return std::string(kBaseSchema) + nsys_test::ActivitySchema() +
         fmt::format(R"sql(
INSERT INTO PROCESSES VALUES ({0}, 100, 'python3');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000, 900000, 0, 1, 7, 11, {0}, 1, 2, 32, 80, 1, 1, 256, 1, 1, 0, 0);
CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);
{1}
{2}
)sql",
                     pid, names_table, rows);
}

TEST(NsysGpuMetricsTest, OlderLayoutOutOfOrderRowsAndOddValues) {
  ScratchDir dir;
  const std::string path = dir.File("odd.sqlite");
  // No sourceId: typeId 0x101's low byte is GPU 1, and so is 0x201's. Rows out of order, the
  // two typeIds interleaved, a repeated timestamp, times out of range, a NULL value, a negative
  // one, an unknown metric and a metric without a name.
  WriteDatabase(path, WithMetrics(R"sql(
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, metricId INTEGER, metricName TEXT);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES (257, 5, 'SMs Active'), (257, 6, 'GPC Clock Frequency [MHz]'),
  (257, 7, 'SM Issue [Throughput %]'), (513, 5, 'SM Active');)sql",
                                  R"sql(
INSERT INTO GPU_METRICS VALUES (300000, 257, 5, 40), (100000, 257, 5, 10), (200000, 257, 5, 20),
  (400000, 257, 5, NULL), (500000, 257, 5, -3), (200000, 257, 6, 1980), (300000, 257, 6, 1980),
  (200000, 257, 9, 50), (200000, 257, 7, 120), (200000, 513, 5, 90), (200000, 257, 5, 20),
  (-5, 257, 5, 30), (9223372036854775807, 257, 5, 30);)sql"));
  auto trace = ImportOne(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const std::vector<GpuMetricBins> all = ReadGpuMetricBins(*trace);
  const GpuMetricBins* sm = Find(all, gpu_metric::kSmActive, 1);
  ASSERT_NE(sm, nullptr);
  // Each sample covers the 100 µs before it: bins 0, 1, 2.
  EXPECT_EQ(sm->start, (std::vector<TimeNs>{0, 100'000, 200'000}));
  EXPECT_EQ(sm->value, (std::vector<double>{10, 20, 40}));
  const GpuMetricBins* issue = Find(all, gpu_metric::kSmIssue, 1);
  ASSERT_NE(issue, nullptr);
  EXPECT_EQ(issue->value, std::vector<double>{100});  // clamped: a throughput % is at most 100
  EXPECT_EQ(trace->problems.Get(DataProblem::kBadValue), 2);
  EXPECT_EQ(trace->problems.Get(DataProblem::kUnmappedMetric), 3);  // 2 clock + 1 unnamed
  // At 200 µs three samples: one of typeId 0x101's two (both 20) is kept; the other and
  // 0x201's (90, ordered after by typeId) are dropped.
  // ... and a time before the session and one past 2^62 ns are no times to bin.
  EXPECT_EQ(trace->problems.Get(DataProblem::kBadTimestamp), 4);
}

TEST(NsysGpuMetricsTest, WithoutTheNamesTableEverySampleIsCountedNotFatal) {
  ScratchDir dir;
  const std::string path = dir.File("nonames.sqlite");
  WriteDatabase(path, WithMetrics("",
                                  "INSERT INTO GPU_METRICS VALUES (100000, 0, 1, 50), "
                                  "(200000, 0, 1, 60);"));
  auto trace = ImportOne(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_TRUE(ReadGpuMetricBins(*trace).empty());
  EXPECT_EQ(trace->problems.Get(DataProblem::kUnmappedMetric), 2);
  EXPECT_NE(trace->problems.Detail(DataProblem::kUnmappedMetric).find("TARGET_INFO_GPU_METRICS"),
            std::string_view::npos);
  EXPECT_EQ(trace->gpu_ops.size(), 1u);  // the rest of the export is read as ever
}

TEST(NsysGpuMetricsTest, LongCapturesGetWiderBinsWithinTheBound) {
  ScratchDir dir;
  const std::string path = dir.File("long.sqlite");
  // 10 s at 10 kHz would be 100k bins: samples 10 s apart set the width.
  WriteDatabase(
      path, WithMetrics("CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, sourceId "
                        "INTEGER, typeName TEXT, metricId INTEGER, metricName TEXT);"
                        "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (9, 0, 'GPU', 1, "
                        "'GR Active [Throughput %]');",
                        "INSERT INTO GPU_METRICS VALUES (100000, 9, 1, 50), (200000, 9, 1, 50), "
                        "(300000, 9, 1, 50), (10000100000, 9, 1, 70);"));
  auto trace = ImportOne(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const std::vector<GpuMetricBins> all = ReadGpuMetricBins(*trace);
  const GpuMetricBins* gr = Find(all, gpu_metric::kGrActive, 0);  // sourceId 0, not typeId 9
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->bin_ns, 400'000);  // ceil(10.0001 s / 32768 / 100 µs) x 100 µs
  EXPECT_LE(static_cast<int64_t>(gr->start.size()), kMaxGpuMetricBins);
  // The last sample, after a pause, stands for one typical gap (100 µs) of its bin.
  EXPECT_EQ(gr->value.back(), 70);
  EXPECT_EQ(gr->start.back(), 10'000'000'000);
}

}  // namespace nsys_gpu_metrics_test
}  // namespace gpuwhy
