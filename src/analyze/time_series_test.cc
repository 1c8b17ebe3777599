// The time series against the whole-window analyses it buckets: weighted over buckets, the
// kernel and GPU-op shares give the utilization per device, the idle shares per cause give
// the idle-gap totals, and busy plus idle cover each bucket.
#include "analyze/time_series.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "analyze/analysis.h"
#include "ingest/importer.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace time_series_test {

namespace fs = std::filesystem;

Trace SynthTrace(const std::string& scenario) {
  fs::path dir = fs::path(::testing::TempDir()) / ("gpuwhy_series_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / (scenario + ".json")).string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = 8;
  EXPECT_TRUE(WriteSyntheticTrace(options, path).ok());
  StatusOr<Trace> trace = ImportTraceFile(path);
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  return std::move(*trace);
}

// Sum over buckets of pct × bucket length: the covered time in ns.
double Covered(const std::vector<double>& pct, const TimeSeriesResult& r) {
  double ns = 0;
  for (size_t b = 0; b < pct.size(); ++b)
    ns += pct[b] / 100.0 * static_cast<double>(r.Bucket(b).length());
  return ns;
}

class TimeSeriesScenarioTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TimeSeriesScenarioTest, BucketsAddUpToTheWholeWindowAnalyses) {
  Trace trace = SynthTrace(GetParam());
  TraceAnalysis a = AnalyzeTrace(trace);
  const TimeSeriesResult& r = a.series;
  ASSERT_TRUE(a.utilization.valid);
  ASSERT_EQ(r.bucket_count, kDefaultSeriesBuckets);
  EXPECT_EQ(r.window, a.utilization.window);
  EXPECT_EQ(r.Bucket(r.bucket_count - 1).end, r.window.end);
  ASSERT_EQ(r.devices.size(), a.utilization.per_device.size());
  double window = static_cast<double>(r.window.length());
  for (size_t d = 0; d < r.devices.size(); ++d) {
    const DeviceBusySeries& s = r.devices[d];
    ASSERT_EQ(s.device, a.utilization.per_device[d].device);
    EXPECT_NEAR(Covered(s.kernel_pct, r) / window * 100,
                a.utilization.per_device[d].share.kernel_pct, 1e-6);
    EXPECT_NEAR(Covered(s.gpu_op_pct, r) / window * 100,
                a.utilization.per_device[d].share.gpu_op_pct, 1e-6);
    const DeviceIdleGaps& idle = a.idle_gaps.devices[d];
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      EXPECT_NEAR(Covered(s.idle_pct[c], r), static_cast<double>(idle.totals.ns[c]), 1.0) << c;
    }
    // The idle window is the step window: inside it, busy and idle cover every bucket.
    if (idle.window == r.window) {
      for (size_t b = 0; b < r.bucket_count; ++b) {
        double sum = s.gpu_op_pct[b];
        for (size_t c = 0; c < kIdleCauseCount; ++c) sum += s.idle_pct[c][b];
        EXPECT_NEAR(sum, 100.0, 1e-6) << "bucket " << b;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, TimeSeriesScenarioTest,
                         ::testing::Values("healthy", "input-bound", "comm-exposed"));

TEST(TimeSeriesTest, MemoryCarriesTheLastValueAndKeepsEachBucketsPeak) {
  Trace trace;
  trace.steps.rows.push_back({1, trace.strings.Intern("ProfilerStep#1"), 0, 1000, 0, 1000, 0});
  GpuOpTable::Row op;
  op.kind = GpuOpKind::kKernel;
  op.device = 0;
  op.stream = 7;
  op.start = 100;
  op.end = 900;
  op.name = trace.strings.Intern("k");
  trace.gpu_ops.Append(op);
  auto alloc = [&](TimeNs ts, int64_t allocated, int64_t reserved) {
    MemoryEventTable::Row row;
    row.ts = ts;
    row.device_type = 1;
    row.device_id = 0;
    row.total_allocated = allocated;
    row.total_reserved = reserved;
    trace.memory_events.rows.push_back(row);
  };
  alloc(-50, 10, 20);  // before the window: carried into bucket 0
  alloc(420, 300, 400);
  alloc(405, 100, 400);  // out of order: sorted by time
  alloc(460, 50, 400);
  trace.Finalize();
  DeviceTimelines timelines = BuildDeviceTimelines(trace);
  AnalysisOptions options;
  MetricSet metrics;
  AnalysisInput input{trace, timelines, options};
  UtilizationResult utilization = ComputeUtilization(input, metrics);
  IdleGapsResult idle = ComputeIdleGaps(input, metrics);
  TimeSeriesResult r = ComputeTimeSeries(input, utilization, idle, 10);
  ASSERT_EQ(r.bucket_count, 10u);
  ASSERT_EQ(r.memory.size(), 1u);
  const DeviceMemorySeries& m = r.memory[0];
  ASSERT_EQ(r.window.start, 0);
  EXPECT_EQ(m.allocated_bytes[0], 10);
  EXPECT_EQ(m.allocated_bytes[3], 10);
  EXPECT_EQ(m.allocated_bytes[4], 300);  // 405, 420, 460 all in [400, 500)
  EXPECT_EQ(m.allocated_bytes[5], 300);  // carried
  EXPECT_EQ(m.reserved_bytes[9], 400);
  // Kernel 100..900 in 10 buckets of 100 ns: buckets 1..8 full.
  EXPECT_DOUBLE_EQ(r.devices[0].kernel_pct[0], 0.0);
  EXPECT_DOUBLE_EQ(r.devices[0].kernel_pct[1], 100.0);
  EXPECT_DOUBLE_EQ(r.devices[0].kernel_pct[9], 0.0);
}

}  // namespace time_series_test
}  // namespace gpuwhy
