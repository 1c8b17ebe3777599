#include "analyze/utilization.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace utilization_test {

constexpr TimeNs kUs = kNsPerUs;

class UtilizationTest : public ::testing::Test {
 protected:
  void Launch(int64_t correlation, TimeNs at) {
    CpuSliceTable::Row row;
    row.thread = trace_.GetOrCreateThread(1, 1);
    row.start = at;
    row.end = at + 1;
    row.name = trace_.strings.Intern("cudaLaunchKernel");
    row.kind = CpuSliceKind::kRuntime;
    row.correlation = correlation;
    trace_.cpu_slices.Append(row);
  }
  void Op(GpuOpKind kind, TimeNs start, TimeNs end, int64_t correlation, int32_t device = 0) {
    GpuOpTable::Row row;
    row.kind = kind;
    row.device = device;
    row.stream = 7;
    row.start = start;
    row.end = end;
    row.name = trace_.strings.Intern(kind == GpuOpKind::kKernel ? "volta_sgemm" : "Memcpy HtoD");
    row.correlation = correlation;
    trace_.gpu_ops.Append(row);
  }
  void Step(int64_t number, TimeNs start, TimeNs end) {
    trace_.steps.rows.push_back({number,
                                 trace_.strings.Intern("ProfilerStep#" + std::to_string(number)),
                                 start, end, start, end, 0});
  }
  // Two steps; a cuda_sync wait that must never count as busy.
  void BuildTwoSteps() {
    Step(1, 0, 50 * kUs);
    Step(2, 50 * kUs, 100 * kUs);
    Launch(1, 5 * kUs);
    Launch(2, 6 * kUs);
    Launch(3, 55 * kUs);
    Launch(4, 90 * kUs);
    Op(GpuOpKind::kKernel, 10 * kUs, 30 * kUs, 1);
    Op(GpuOpKind::kMemcpy, 30 * kUs, 40 * kUs, 2);
    Op(GpuOpKind::kKernel, 60 * kUs, 70 * kUs, 3);
    Op(GpuOpKind::kKernel, 95 * kUs, 120 * kUs, 4);
    trace_.gpu_syncs.rows.push_back(
        {0, 7, 70 * kUs, 90 * kUs, trace_.strings.Intern("Stream Sync"), 9, -1, -1});
  }
  UtilizationResult Run() {
    trace_.Finalize();
    timelines_ = BuildDeviceTimelines(trace_);
    return ComputeUtilization({trace_, timelines_, options_}, metrics_);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  MetricSet metrics_;
};

TEST_F(UtilizationTest, BothConventionsOverTheSteps) {
  BuildTwoSteps();
  UtilizationResult r = Run();
  ASSERT_TRUE(r.valid);
  EXPECT_TRUE(r.window_from_steps);
  EXPECT_EQ(r.window, (Interval{0, 120 * kUs}));  // ends at the last step's device end
  EXPECT_EQ(r.rank.kernel_busy_ns, 55 * kUs);
  EXPECT_EQ(r.rank.gpu_op_busy_ns, 65 * kUs);
  EXPECT_DOUBLE_EQ(r.rank.kernel_pct, 100.0 * 55 / 120);
  EXPECT_DOUBLE_EQ(r.rank.gpu_op_pct, 100.0 * 65 / 120);
  ASSERT_EQ(r.per_device.size(), 1u);
  EXPECT_DOUBLE_EQ(r.per_device[0].share.gpu_op_pct, 100.0 * 65 / 120);
  ASSERT_EQ(r.per_step.size(), 2u);
  EXPECT_EQ(r.per_step[0].window, (Interval{0, 50 * kUs}));
  EXPECT_DOUBLE_EQ(r.per_step[0].share.kernel_pct, 40.0);
  EXPECT_DOUBLE_EQ(r.per_step[0].share.gpu_op_pct, 60.0);
  EXPECT_EQ(r.per_step[1].window, (Interval{50 * kUs, 120 * kUs}));
  EXPECT_DOUBLE_EQ(r.per_step[1].share.kernel_pct, 50.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("util.kernel_pct", -1, MetricScope::Step(2)), 50.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("util.window_ms", -1), 0.12);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("util.gpu_op_pct", -1, MetricScope::Device(0)),
                   100.0 * 65 / 120);
}

TEST_F(UtilizationTest, DropLastStepShrinksTheWindow) {
  BuildTwoSteps();
  options_.drop_last_step = true;
  UtilizationResult r = Run();
  EXPECT_EQ(r.window, (Interval{0, 50 * kUs}));
  EXPECT_DOUBLE_EQ(r.rank.kernel_pct, 40.0);
  EXPECT_EQ(r.per_step.size(), 1u);
}

TEST_F(UtilizationTest, RankAveragesDevices) {
  Op(GpuOpKind::kKernel, 0, 10 * kUs, 1, 0);
  Op(GpuOpKind::kKernel, 0, 20 * kUs, 2, 1);
  UtilizationResult r = Run();  // no steps: window = trace span [0, 20)
  EXPECT_FALSE(r.window_from_steps);
  EXPECT_TRUE(r.per_step.empty());
  EXPECT_FALSE(r.not_applicable.empty());
  EXPECT_DOUBLE_EQ(r.rank.kernel_pct, 75.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("util.kernel_pct", -1, MetricScope::Device(1)), 100.0);
}

TEST_F(UtilizationTest, NoGpuOpsIsNotApplicable) {
  Launch(1, 0);
  UtilizationResult r = Run();
  EXPECT_FALSE(r.valid);
  EXPECT_FALSE(r.not_applicable.empty());
  EXPECT_TRUE(metrics_.all().empty());
}

}  // namespace utilization_test
}  // namespace gpuwhy
