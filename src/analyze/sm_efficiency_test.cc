#include "analyze/sm_efficiency.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace sm_efficiency_test {

constexpr TimeNs kUs = kNsPerUs;

class SmEfficiencyTest : public ::testing::Test {
 protected:
  void Kernel(const char* name, TimeNs start_us, TimeNs end_us, float blocks_per_sm,
              float occupancy_pct = kNoFloat, int32_t device = 0) {
    GpuOpTable::Row row;
    row.kind = GpuOpKind::kKernel;
    row.device = device;
    row.stream = 7;
    row.start = start_us * kUs;
    row.end = end_us * kUs;
    row.name = trace_.strings.Intern(name);
    row.launch.blocks_per_sm = blocks_per_sm;
    row.launch.occupancy_pct = occupancy_pct;
    row.launch.grid = {4, 1, 1};
    row.launch.block = {128, 1, 1};
    trace_.gpu_ops.Append(row);
  }
  SmEfficiencyResult Run() {
    timelines_ = BuildDeviceTimelines(trace_);
    util_.valid = true;
    util_.window = {0, 100 * kUs};
    AnalysisInput input{trace_, timelines_, options_};
    return ComputeSmEfficiency(input, util_, metrics_);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  UtilizationResult util_;
  MetricSet metrics_;
};

// Worked by hand over a 100 µs window (the plugin's rules): overlapping kernels add their
// blocks per SM up to 1, a kernel past the window is clipped, a kernel without the argument
// adds nothing, communication kernels count in SM efficiency but not in the small-grid share.
TEST_F(SmEfficiencyTest, MatchesTheTensorBoardPluginDefinitionsOnAHandWorkedTimeline) {
  Kernel("a_small", 0, 40, 0.5f, 20);
  Kernel("b_small", 20, 60, 0.75f, 60);  // [20,40): 0.5 + 0.75 capped at 1
  Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 60, 70, 0.1f);
  Kernel("no_launch_args", 70, 80, kNoFloat);
  Kernel("c_full", 80, 120, 2.0f);  // clipped to [80,100)
  Kernel("other_device_without_args", 0, 50, kNoFloat, kNoFloat, 1);
  SmEfficiencyResult r = Run();
  ASSERT_TRUE(r.valid);
  // 0.5×20 + 1×20 + 0.75×20 + 0.1×10 + 1×20 = 66 µs of 100.
  ASSERT_EQ(r.per_device.size(), 1u);
  EXPECT_EQ(r.per_device[0].device, 0);
  EXPECT_NEAR(*r.per_device[0].est_sm_efficiency_pct, 66.0, 1e-4);
  EXPECT_NEAR(*r.est_sm_efficiency_pct, 66.0, 1e-4);  // the device without args is left out
  // (20×40 + 60×40) / 80.
  EXPECT_NEAR(*r.est_occupancy_pct, 40.0, 1e-4);
  // Small grids a + b (80 µs) of the non-communication kernels with args (a, b, c: 100 µs).
  EXPECT_EQ(r.totals.compute_with_blocks_ns, 100 * kUs);
  EXPECT_EQ(r.totals.small_grid_ns, 80 * kUs);
  EXPECT_NEAR(r.small_grid_time_pct, 80.0, 1e-9);
  EXPECT_NEAR(r.small_grid_mean_fill, 0.625, 1e-6);
  // 110 µs of 170 µs of kernel time in the window carries blocks per SM.
  EXPECT_NEAR(r.blocks_coverage_pct, 100.0 * 110 / 170, 1e-9);
  ASSERT_EQ(r.top_small_grids.size(), 2u);
  EXPECT_EQ(r.top_small_grids[0].name, "a_small");  // equal time: by name
  EXPECT_EQ(r.top_small_grids[0].blocks, 4);
  EXPECT_EQ(r.top_small_grids[0].threads_per_block, 128);
  EXPECT_NEAR(*r.top_small_grids[1].est_occupancy_pct, 60.0, 1e-6);
  ASSERT_NE(metrics_.Find("kernels.est_sm_efficiency_pct"), nullptr);
  EXPECT_NEAR(metrics_.Find("kernels.est_sm_efficiency_pct")->value, 66.0, 1e-4);
  ASSERT_NE(metrics_.Find("kernels.small_grid_time_pct", MetricScope::Device(0)), nullptr);
  EXPECT_NEAR(metrics_.Find("kernels.small_grid_time_pct", MetricScope::Device(0))->value, 80.0,
              1e-9);
}

TEST_F(SmEfficiencyTest, BackToBackKernelsDoNotCarryTheFirstKernelsFill) {
  Kernel("first", 0, 50, 0.3f);
  Kernel("second", 50, 100, 0.6f);
  SmEfficiencyResult r = Run();
  EXPECT_NEAR(*r.est_sm_efficiency_pct, 45.0, 1e-4);  // 0.3×50 + 0.6×50
}

TEST_F(SmEfficiencyTest, KernelsWithoutLaunchArgumentsSayWhyNothingWasEstimated) {
  Kernel("rocm_kernel", 0, 50, kNoFloat);
  SmEfficiencyResult r = Run();
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.not_applicable.size(), 1u);
  EXPECT_NE(r.not_applicable[0].find("blocks per SM"), std::string::npos);
  EXPECT_EQ(metrics_.Find("kernels.est_sm_efficiency_pct"), nullptr);
}

}  // namespace sm_efficiency_test
}  // namespace gpuwhy
