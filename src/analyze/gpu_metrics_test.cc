#include "analyze/gpu_metrics.h"

#include <gtest/gtest.h>

#include "model/gpu_metric_bins.h"

namespace gpuwhy {
namespace gpu_metrics_test {

constexpr TimeNs kBin = kGpuMetricBinNs;

class GpuMetricsTest : public ::testing::Test {
 protected:
  // Bins of |metric| on |device| from bin |first| on, one value each.
  void Series(std::string_view metric, int32_t device, int64_t first,
              std::initializer_list<double> values) {
    StringId name =
        trace_.strings.Intern(std::string(kGpuMetricCounterPrefix) + std::string(metric));
    int64_t b = first;
    for (double v : values) trace_.counters.rows.push_back({name, device, b++ * kBin, v});
  }
  GpuMetricsResult Run(Interval window, std::vector<StepUtilization> steps = {}) {
    timelines_ = BuildDeviceTimelines(trace_);
    util_.valid = true;
    util_.window = window;
    util_.per_step = std::move(steps);
    AnalysisInput input{trace_, timelines_, options_};
    return ComputeGpuMetrics(input, util_, metrics_);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  UtilizationResult util_;
  MetricSet metrics_;
};

TEST_F(GpuMetricsTest, WithoutSeriesSaysHowToCaptureThem) {
  GpuMetricsResult r = Run({0, 10 * kBin});
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.not_applicable.size(), 1u);
  EXPECT_NE(r.not_applicable[0].find("--gpu-metrics-devices=all"), std::string::npos);
  EXPECT_EQ(metrics_.Find("gpu_metrics.sm_active_pct"), nullptr);
}

// Worked by hand: a window of bins 1..4 and a half of bin 5 (450 µs).
TEST_F(GpuMetricsTest, TimeWeightedMeansPerDeviceStepAndRank) {
  Series(gpu_metric::kSmActive, 0, 0, {90, 20, 40, 60, 80, 100, 0});
  Series(gpu_metric::kTensorActive, 0, 1, {10, 10, 30, 30, 50});
  Series(gpu_metric::kDramReadBw, 0, 1, {50, 50, 50, 50, 50});
  Series(gpu_metric::kDramWriteBw, 0, 1, {60, 60, 60, 60, 60});  // read + write caps at 100
  Series(gpu_metric::kSmActive, 1, 3, {10, 10});                 // half the window covered
  const Interval window{kBin, 5 * kBin + kBin / 2};
  StepUtilization first;
  first.step = 7;
  first.window = {kBin, 3 * kBin};
  GpuMetricsResult r = Run(window, {first});
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.source, "nsys GPU_METRICS (sampled)");
  ASSERT_EQ(r.per_device.size(), 2u);
  // (20 + 40 + 60 + 80) x 100 µs + 100 x 50 µs over 450 µs.
  const double sm0 = (20 + 40 + 60 + 80 + 100 * 0.5) / 4.5;
  EXPECT_NEAR(*r.per_device[0].means.sm_active_pct, sm0, 1e-9);
  EXPECT_NEAR(r.per_device[0].means.coverage_pct, 100, 1e-9);
  EXPECT_NEAR(*r.per_device[0].means.tensor_active_pct, (10 + 10 + 30 + 30 + 50 * 0.5) / 4.5, 1e-9);
  EXPECT_DOUBLE_EQ(*r.per_device[0].means.dram_bw_pct, 100);
  EXPECT_FALSE(r.per_device[0].means.sm_issue_pct.has_value());  // not sampled: absent, not 0
  EXPECT_DOUBLE_EQ(*r.per_device[1].means.sm_active_pct, 10);
  EXPECT_NEAR(r.per_device[1].means.coverage_pct, 200.0 / 4.5, 1e-9);
  EXPECT_NEAR(*r.rank.sm_active_pct, (sm0 + 10) / 2, 1e-9);
  EXPECT_NEAR(metrics_.ValueOr("gpu_metrics.sm_active_pct", -1, MetricScope::Device(1)), 10, 1e-9);
  // Step 7 covers bins 1 and 2: device 0 only (device 1 starts at bin 3).
  ASSERT_EQ(r.per_step.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.per_step[0].means.sm_active_pct, 30);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("gpu_metrics.sm_active_pct", -1, MetricScope::Step(7)), 30);
  EXPECT_DOUBLE_EQ(*r.per_step[0].means.tensor_active_pct, 10);
}

TEST_F(GpuMetricsTest, SamplesOutsideTheStepsAreNotAverages) {
  Series(gpu_metric::kSmActive, 0, 100, {50});
  GpuMetricsResult r = Run({0, 10 * kBin});
  EXPECT_FALSE(r.valid);
  ASSERT_FALSE(r.not_applicable.empty());
  EXPECT_NE(r.not_applicable[0].find("no sample"), std::string::npos);
}

// DCGM profiling series beside a trace (gpu_metrics_join.h), worked by hand: the trace's clock
// starts at kBase on the wall clock; one SM-active sample per 100 ms, each the mean of the
// 100 ms before its timestamp.
constexpr TimeNs kBase = 1751410836000000000;
constexpr DurationNs kPeriod = 100 * kNsPerMs;

MetricSeriesSet DcgmLog(TimeNs first_sample, std::initializer_list<double> sm_active) {
  MetricSeriesSet log;
  log.source = "dcgm-exporter";
  log.path = "dcgm.prom";
  log.nominal_interval_ns = kPeriod;
  TimeNs t = first_sample;
  for (double v : sm_active) {
    log.Add({std::string(gpu_metric::kSmActive), 0, ""}, "%", t, v);
    log.Add({std::string(gpu_metric::kSmOccupancy), 0, ""}, "%", t, v / 2);
    log.Add({std::string(gpu_metric::kDramActive), 0, ""}, "%", t, 30);
    t += kPeriod;
  }
  return log;
}

TEST_F(GpuMetricsTest, ADcgmLogWithWallClockTimesJoinsTheTrace) {
  trace_.metadata.base_time_ns = kBase;
  // Samples at 100..400 ms cover [0, 400 ms); the window [50, 250 ms) takes half of the first,
  // all of the second and half of the third.
  std::vector<MetricSeriesSet> logs = {DcgmLog(kBase + kPeriod, {20, 40, 60, 90})};
  options_.metric_logs = logs;
  GpuMetricsResult r = Run({50 * kNsPerMs, 250 * kNsPerMs});
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.source_label, "dcgm-exporter");
  EXPECT_NE(r.source.find("dcgm.prom (100 ms samples, joined by wall clock"), std::string::npos)
      << r.source;
  EXPECT_EQ(r.bin_ns, kPeriod);
  EXPECT_NEAR(*r.rank.sm_active_pct, (20 * 0.5 + 40 + 60 * 0.5) / 2, 1e-9);
  EXPECT_NEAR(*r.rank.sm_occupancy_pct, (10 * 0.5 + 20 + 30 * 0.5) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(*r.rank.dram_bw_pct, 30);  // DCGM DRAM active where nsys bandwidth is absent
  EXPECT_NEAR(r.rank.coverage_pct, 100, 1e-9);
  EXPECT_NEAR(metrics_.ValueOr("gpu_metrics.sm_occupancy_pct", -1, MetricScope::Rank()), 20, 1e-9);
}

TEST_F(GpuMetricsTest, ALogThatCannotBePlacedOnTheTracesClockSaysWhy) {
  std::vector<MetricSeriesSet> logs = {DcgmLog(kBase + kPeriod, {50, 50})};
  options_.metric_logs = logs;
  GpuMetricsResult r = Run({0, kPeriod});  // the trace has no wall-clock base
  EXPECT_FALSE(r.valid);
  ASSERT_FALSE(r.not_applicable.empty());
  EXPECT_NE(r.not_applicable[0].find("no wall-clock base"), std::string::npos);

  trace_.metadata.base_time_ns = kBase;
  logs[0].times_synthesized = true;  // dcgmi dmon: rows without time
  r = Run({0, kPeriod});
  EXPECT_FALSE(r.valid);
  EXPECT_NE(r.not_applicable[0].find("carry no wall-clock time"), std::string::npos);

  logs = {DcgmLog(kBase + 3600 * kNsPerSec, {50, 50})};  // an hour after the capture
  options_.metric_logs = logs;
  r = Run({0, kPeriod});
  EXPECT_FALSE(r.valid);
  EXPECT_NE(r.not_applicable[0].find("no SM-activity sample falls inside"), std::string::npos);
}

TEST_F(GpuMetricsTest, AnExportsOwnGpuMetricsWinOverALogBesideIt) {
  Series(gpu_metric::kSmActive, 0, 0, {70, 70});
  trace_.metadata.base_time_ns = kBase;
  std::vector<MetricSeriesSet> logs = {DcgmLog(kBase + kBin, {10, 10})};
  options_.metric_logs = logs;
  GpuMetricsResult r = Run({0, 2 * kBin});
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.source_label, "nsys GPU_METRICS");
  EXPECT_DOUBLE_EQ(*r.rank.sm_active_pct, 70);
  ASSERT_EQ(r.not_applicable.size(), 1u);
  EXPECT_NE(r.not_applicable[0].find("dcgm.prom not joined"), std::string::npos);
}

}  // namespace gpu_metrics_test
}  // namespace gpuwhy
