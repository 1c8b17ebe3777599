#include "analyze/flops.h"

#include <gtest/gtest.h>

#include "analyze/step_breakdown.h"

namespace gpuwhy {
namespace flops_test {

using Dims = std::vector<std::vector<int64_t>>;

TEST(FlopsFromShapesTest, GemmsAreTwoMacsPerOutputElementAndReduction) {
  EXPECT_EQ(FlopsFromShapes("aten::mm", {{128, 10}, {10, 512}}), 2.0 * 128 * 10 * 512);
  EXPECT_EQ(FlopsFromShapes("aten::addmm", {{512}, {128, 784}, {784, 512}, {}, {}}),
            2.0 * 128 * 784 * 512);
  EXPECT_EQ(FlopsFromShapes("aten::bmm", {{2, 5, 7}, {2, 7, 3}}), 2.0 * 2 * 5 * 7 * 3);
  EXPECT_EQ(FlopsFromShapes("aten::baddbmm", {{2, 5, 3}, {2, 5, 7}, {2, 7, 3}}),
            2.0 * 2 * 5 * 7 * 3);
  EXPECT_EQ(FlopsFromShapes("aten::mm", {{128, 10}, {11, 512}}), std::nullopt);  // K differs
  EXPECT_EQ(FlopsFromShapes("aten::mm", {{128, 10}}), std::nullopt);
  EXPECT_EQ(FlopsFromShapes("aten::relu", {{128, 10}}), std::nullopt);
}

TEST(FlopsFromShapesTest, AttentionCountsBothProductsAndBackwardTwoAndAHalfTimes) {
  Dims qkv = {{2, 8, 128, 64}, {2, 8, 256, 64}, {2, 8, 256, 64}};
  const double forward = 4.0 * 2 * 8 * 128 * 256 * 64;
  EXPECT_EQ(FlopsFromShapes("aten::scaled_dot_product_attention", qkv), forward);
  Dims backward = {{2, 8, 128, 64}, qkv[0], qkv[1], qkv[2]};
  EXPECT_EQ(FlopsFromShapes("aten::_scaled_dot_product_flash_attention_backward", backward),
            2.5 * forward);
}

class ComputeFlopsTest : public ::testing::Test {
 protected:
  void Op(const char* name, TimeNs start, TimeNs end, const char* dims, int64_t flops = kNoValue,
          const char* types = "[\"c10::BFloat16\", \"c10::BFloat16\"]") {
    CpuSliceTable::Row row;
    row.thread = trace_.GetOrCreateThread(1, 1);
    row.start = start;
    row.end = end;
    row.name = trace_.strings.Intern(name);
    row.kind = CpuSliceKind::kOp;
    if (dims != nullptr) row.input_dims = trace_.strings.Intern(dims);
    row.input_types = trace_.strings.Intern(types);
    row.flops = flops;
    trace_.cpu_slices.Append(row);
  }
  // A runtime call (nested in the op before it) that launched one kernel.
  void Launch(TimeNs start, TimeNs end, int64_t correlation, TimeNs kernel_start,
              TimeNs kernel_end) {
    CpuSliceTable::Row row;
    row.thread = trace_.GetOrCreateThread(1, 1);
    row.start = start;
    row.end = end;
    row.name = trace_.strings.Intern("cudaLaunchKernel");
    row.kind = CpuSliceKind::kRuntime;
    row.correlation = correlation;
    trace_.cpu_slices.Append(row);
    GpuOpTable::Row k;
    k.start = kernel_start;
    k.end = kernel_end;
    k.name = trace_.strings.Intern("gemm");
    k.correlation = correlation;
    trace_.gpu_ops.Append(k);
  }
  FlopsResult Run(const StepExtents* steps = nullptr) {
    trace_.devices.rows.push_back({0, trace_.strings.Intern("NVIDIA H100 80GB HBM3")});
    GpuOpTable::Row k;
    k.start = 0;
    k.end = 10;
    k.name = trace_.strings.Intern("kernel");
    trace_.gpu_ops.Append(k);
    trace_.Finalize();
    timelines_ = BuildDeviceTimelines(trace_);
    util_.valid = true;
    util_.window = {0, 1'000'000'000};  // 1 s
    AnalysisInput input{trace_, timelines_, options_};
    return ComputeFlops(input, util_, kernels_, metrics_, steps);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  UtilizationResult util_;
  KernelStatsResult kernels_;
  MetricSet metrics_;
};

// aten::linear's child addmm is the one GEMM; a recorded flops value wins over the shapes;
// an op outside the window is left out.
TEST_F(ComputeFlopsTest, CountsEachGemmOnceInsideTheWindowAndPrefersRecordedFlops) {
  Op("aten::linear", 100, 900, "[[1024, 4096], [4096, 4096], [4096]]");
  Op("aten::addmm", 200, 800, "[[4096], [1024, 4096], [4096, 4096], [], []]");
  Op("aten::mm", 1000, 2000, "[[8, 8], [8, 8]]", /*flops=*/5000);
  Op("aten::mm", 2'000'000'000, 2'000'000'100, "[[8, 8], [8, 8]]");  // after the window
  Op("aten::bmm", 3000, 4000, nullptr);                              // no shapes
  FlopsResult r = Run();
  ASSERT_TRUE(r.valid);
  const double addmm = 2.0 * 1024 * 4096 * 4096;
  EXPECT_EQ(r.ops, 2);
  EXPECT_DOUBLE_EQ(r.total_flops, addmm + 5000);
  EXPECT_DOUBLE_EQ(r.recorded_flops, 5000);
  EXPECT_EQ(r.ops_without_shapes, 1);
  EXPECT_DOUBLE_EQ(r.achieved_flops_per_s, addmm + 5000);  // over 1 s, one device
  ASSERT_TRUE(r.precision.has_value());
  EXPECT_EQ(*r.precision, Precision::kBf16);
  ASSERT_TRUE(r.mfu_pct.has_value());
  EXPECT_NEAR(*r.mfu_pct, 100.0 * (addmm + 5000) / *r.peak_flops_per_s, 1e-9);
  ASSERT_NE(metrics_.Find("flops.mfu_pct"), nullptr);
}

TEST_F(ComputeFlopsTest, WithoutShapesItSaysHowToRecordThem) {
  Op("aten::mm", 100, 200, nullptr);
  FlopsResult r = Run();
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.not_applicable.size(), 1u);
  EXPECT_NE(r.not_applicable[0].find("record_shapes=True"), std::string::npos);
}

// The rate while the matrix-multiply kernels run: counted FLOPs over the time of the kernels the
// counted ops launched (runtime calls nested in them, joined by correlation); a kernel another
// op launched is not theirs.
TEST_F(ComputeFlopsTest, MatmulKernelRateDividesByTheKernelsTheCountedOpsLaunched) {
  Op("aten::linear", 100, 300, "[[4096, 4096], [4096, 4096]]");
  Op("aten::mm", 110, 290, "[[4096, 4096], [4096, 4096]]");
  Launch(120, 130, 7, 1'000, 3'001'000);  // 3 ms of GEMM
  Op("aten::add", 400, 500, "[[4096], [4096]]");
  Launch(410, 420, 8, 4'000'000, 6'000'000);  // 2 ms elementwise, not the GEMM's
  kernels_.kernel_time_ns = 50'000'000;       // the whole capture's: not the share's denominator
  FlopsResult r = Run();
  ASSERT_TRUE(r.valid);
  const double mm = 2.0 * 4096 * 4096 * 4096;
  EXPECT_EQ(r.matmul_kernel_ns, 3'000'000);
  // Over the kernels that start in the window: both, and the 10 ns one Run() adds.
  EXPECT_DOUBLE_EQ(r.matmul_kernel_time_pct, 100.0 * 3'000'000 / 5'000'010);
  EXPECT_DOUBLE_EQ(r.matmul_kernel_flops_per_s, mm / 3e-3);
  ASSERT_TRUE(r.matmul_mfu_pct.has_value());
  EXPECT_NEAR(*r.matmul_mfu_pct, 100.0 * mm / 3e-3 / *r.peak_flops_per_s, 1e-9);
  ASSERT_NE(metrics_.Find("flops.matmul_mfu_pct"), nullptr);
}

// The steady state: a warm-up step the extents left out (step 1, its GEMM the slowest) counts
// nothing; each kept step gets its FLOPs, rate and MFU, the rank its window's and their mean.
TEST_F(ComputeFlopsTest, CountsOverTheSteadyStateStepsAndPerStep) {
  Op("aten::mm", 100, 200, "[[4096, 4096], [4096, 4096]]");                  // warm-up step 1
  Op("aten::mm", 300'000'000, 300'000'100, "[[4096, 4096], [4096, 4096]]");  // step 2
  Op("aten::mm", 300'000'200, 300'000'300, "[[4096, 4096], [4096, 4096]]");  // step 2
  Op("aten::mm", 600'000'000, 600'000'100, "[[4096, 4096], [4096, 4096]]");  // step 3
  StepExtents steps;
  steps.warmup = {1};
  steps.steps.push_back({2, {300'000'000, 300'000'000}, {300'000'000, 600'000'000}, 1});
  steps.steps.push_back({3, {600'000'000, 600'000'000}, {600'000'000, 1'000'000'000}, 1});
  FlopsResult r = Run(&steps);
  ASSERT_TRUE(r.valid);
  const double mm = 2.0 * 4096 * 4096 * 4096;
  EXPECT_TRUE(r.window_from_steps);
  EXPECT_EQ(r.window.start, 300'000'000);
  EXPECT_EQ(r.window.end, 1'000'000'000);
  EXPECT_EQ(r.ops, 3);
  EXPECT_DOUBLE_EQ(r.total_flops, 3 * mm);
  EXPECT_EQ(r.steps, 2);
  EXPECT_DOUBLE_EQ(r.per_step_flops, 1.5 * mm);
  EXPECT_DOUBLE_EQ(r.achieved_flops_per_s, 3 * mm / 0.7);  // 0.7 s, one device
  ASSERT_EQ(r.per_step.size(), 2u);
  EXPECT_EQ(r.per_step[0].step, 2);
  EXPECT_DOUBLE_EQ(r.per_step[0].flops, 2 * mm);
  EXPECT_DOUBLE_EQ(r.per_step[0].achieved_flops_per_s, 2 * mm / 0.3);
  EXPECT_DOUBLE_EQ(r.per_step[1].flops, mm);
  EXPECT_DOUBLE_EQ(r.per_step[1].achieved_flops_per_s, mm / 0.4);
  ASSERT_TRUE(r.peak_flops_per_s && r.per_step[0].mfu_pct && r.per_step[1].mfu_pct);
  const double peak = *r.peak_flops_per_s;
  EXPECT_NEAR(*r.per_step[0].mfu_pct, 100.0 * 2 * mm / 0.3 / peak, 1e-9);
  EXPECT_NEAR(*r.per_step[1].mfu_pct, 100.0 * mm / 0.4 / peak, 1e-9);
  ASSERT_TRUE(r.mfu_step_mean_pct.has_value());
  EXPECT_NEAR(*r.mfu_step_mean_pct, (*r.per_step[0].mfu_pct + *r.per_step[1].mfu_pct) / 2, 1e-9);
  EXPECT_NEAR(*r.mfu_pct, 100.0 * 3 * mm / 0.7 / peak, 1e-9);
  const Metric* step3 = metrics_.Find("flops.mfu_pct", MetricScope::Step(3));
  ASSERT_NE(step3, nullptr);
  EXPECT_NEAR(step3->value, *r.per_step[1].mfu_pct, 1e-9);
  EXPECT_NE(metrics_.Find("flops.total_tflop", MetricScope::Step(2)), nullptr);
  EXPECT_EQ(metrics_.Find("flops.total_tflop", MetricScope::Step(1)), nullptr);
  EXPECT_NE(metrics_.Find("flops.mfu_step_mean_pct"), nullptr);
}

}  // namespace flops_test
}  // namespace gpuwhy
