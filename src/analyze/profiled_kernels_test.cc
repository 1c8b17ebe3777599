#include "analyze/profiled_kernels.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace profiled_kernels_test {

constexpr TimeNs kUs = kNsPerUs;

TEST(ProfiledKernelsTest, NamesFromCuptiAndNcuMeet) {
  EXPECT_EQ(NormalizeKernelName("void at::native::<unnamed>::k<float, (int)4, (bool)1>(T1, int)"),
            NormalizeKernelName("void at::native::(anonymous namespace)::k<float, 4, 1>(T1,int)"));
  EXPECT_NE(NormalizeKernelName("k<float, (int)4>"), NormalizeKernelName("k<float, 8>"));
}

ProfiledKernel Profiled(int64_t id, const char* name, int64_t grid, int64_t block, double sm,
                        double memory) {
  ProfiledKernel k;
  k.id = id;
  k.name = name;
  k.grid_blocks = grid;
  k.block_threads = block;
  k.metrics.push_back({"", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "", sm});
  k.metrics.push_back(
      {"", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%", "", memory});
  return k;
}

class ProfiledKernelsJoinTest : public ::testing::Test {
 protected:
  void Kernel(const char* name, DurationNs dur, std::array<int32_t, 3> grid) {
    GpuOpTable::Row row;
    row.kind = GpuOpKind::kKernel;
    row.start = cursor_;
    row.end = cursor_ + dur;
    row.name = trace_.strings.Intern(name);
    row.launch.grid = grid;
    row.launch.block = {256, 1, 1};
    trace_.gpu_ops.Append(row);
    cursor_ += dur;
  }
  ProfiledKernelsResult Run() {
    trace_.Finalize();
    timelines_ = BuildDeviceTimelines(trace_);
    options_.kernel_profiles = profiles_;
    AnalysisInput input{trace_, timelines_, options_};
    MetricSet metrics;
    KernelStatsResult kernels = ComputeKernelStats(input, metrics);
    return ComputeProfiledKernels(input, kernels);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  std::vector<KernelProfile> profiles_;
  TimeNs cursor_ = 0;
};

TEST_F(ProfiledKernelsJoinTest, ByNameAndShapeThenName) {
  Kernel("void at::native::vectorized_elementwise_kernel<4, add>(int)", 300 * kUs, {20736, 1, 1});
  Kernel("ampere_sgemm_128x32_tn", 200 * kUs, {16, 24, 1});
  Kernel("void cutlass::Kernel<cfg_a>(Params)", 100 * kUs, {8, 1, 1});
  Kernel("never_profiled", 50 * kUs, {1, 1, 1});
  KernelProfile p;
  p.path = "k.ncu.csv";
  // Same name, other shape first: the shape decides.
  p.kernels.push_back(Profiled(
      0, "void at::native::vectorized_elementwise_kernel<(int)4, add>(int)", 4, 256, 1, 2));
  p.kernels.push_back(Profiled(
      1, "void at::native::vectorized_elementwise_kernel<(int)4, add>(int)", 20736, 256, 14, 91));
  p.kernels.push_back(Profiled(2, "ampere_sgemm_128x32_tn", -1, -1, 86, 38));
  p.kernels.push_back(Profiled(3, "void cutlass::Kernel<cfg_b>(Params)", 8, 256, 5, 8));
  profiles_.push_back(p);
  ProfiledKernelsResult r = Run();
  EXPECT_EQ(r.profiles, 1u);
  EXPECT_EQ(r.profiled_kernels, 4u);
  ASSERT_EQ(r.top.size(), 2u);  // another instance of cutlass::Kernel is another kernel
  EXPECT_EQ(r.top[0].profile_id, 1);
  EXPECT_EQ(r.top[0].match, ProfileMatch::kNameAndShape);
  EXPECT_EQ(r.top[0].roofline.roofline_class, RooflineClass::kMemoryBound);
  EXPECT_EQ(r.top[0].profile_path, "k.ncu.csv");
  EXPECT_EQ(r.top[1].profile_id, 2);
  EXPECT_EQ(r.top[1].match, ProfileMatch::kName);
  EXPECT_EQ(r.top[1].roofline.roofline_class, RooflineClass::kComputeBound);
  EXPECT_NEAR(r.classified_time_pct, 100.0 * 500 / 650, 1e-9);
}

TEST_F(ProfiledKernelsJoinTest, ShapeMismatchIsNoMatchAndNothingGivenIsNothing) {
  Kernel("k", 100 * kUs, {10, 1, 1});
  EXPECT_EQ(Run().profiles, 0u);
  KernelProfile p;
  p.kernels.push_back(Profiled(0, "k", 20, 256, 90, 10));
  profiles_.push_back(p);
  ProfiledKernelsResult r = Run();
  EXPECT_TRUE(r.top.empty());
  ASSERT_EQ(r.not_applicable.size(), 1u);
}

}  // namespace profiled_kernels_test
}  // namespace gpuwhy
