#include "analyze/kernel_stats.h"

#include <gtest/gtest.h>

#include "analyze/kernel_class.h"

namespace gpuwhy {
namespace kernel_stats_test {

constexpr TimeNs kUs = kNsPerUs;

class KernelStatsTest : public ::testing::Test {
 protected:
  // Ops run back to back from |cursor_|; each is launched at its own start by a runtime call.
  void Op(GpuOpKind kind, const char* name, DurationNs dur) {
    ++correlation_;
    CpuSliceTable::Row call;
    call.thread = trace_.GetOrCreateThread(1, 1);
    call.start = cursor_;
    call.end = cursor_ + 1;
    call.name = trace_.strings.Intern("cudaLaunchKernel");
    call.kind = CpuSliceKind::kRuntime;
    call.correlation = correlation_;
    trace_.cpu_slices.Append(call);
    GpuOpTable::Row row;
    row.kind = kind;
    row.start = cursor_;
    row.end = cursor_ + dur;
    row.name = trace_.strings.Intern(name);
    row.correlation = correlation_;
    trace_.gpu_ops.Append(row);
    cursor_ += dur;
  }
  void Build() {
    for (DurationNs d : {10, 20, 30}) Op(GpuOpKind::kKernel, "volta_sgemm_128x64_nn", d * kUs);
    Op(GpuOpKind::kKernel, "volta_h884gemm_64x64_ldg8_nn", 100 * kUs);
    for (int i = 0; i < 4; ++i) Op(GpuOpKind::kKernel, "elementwise_kernel", 2 * kUs);
    Op(GpuOpKind::kMemcpy, "Memcpy HtoD (Pinned -> Device)", 50 * kUs);
  }
  KernelStatsResult Run() {
    trace_.Finalize();
    timelines_ = BuildDeviceTimelines(trace_);
    return ComputeKernelStats({trace_, timelines_, options_}, metrics_);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  MetricSet metrics_;
  TimeNs cursor_ = 0;
  int64_t correlation_ = 0;
};

TEST_F(KernelStatsTest, TopKernelsWithExactDistributions) {
  Build();
  KernelStatsResult r = Run();
  EXPECT_EQ(r.kernel_count, 8);  // the memcpy is not a kernel
  EXPECT_EQ(r.kernel_time_ns, 168 * kUs);
  ASSERT_EQ(r.top.size(), 3u);
  EXPECT_EQ(r.top[0].display_name, "volta_h884gemm_64x64_ldg8_nn");
  EXPECT_TRUE(r.top[0].tensor_cores);
  const KernelNameStats& sgemm = r.top[1];
  EXPECT_EQ(sgemm.count, 3);
  EXPECT_EQ(sgemm.kernel_class, KernelClass::kGemm);
  EXPECT_DOUBLE_EQ(sgemm.duration_us.mean, 20.0);
  EXPECT_DOUBLE_EQ(sgemm.duration_us.median, 20.0);
  EXPECT_DOUBLE_EQ(sgemm.duration_us.p95, 29.0);
  EXPECT_DOUBLE_EQ(sgemm.time_pct, 100.0 * 60 / 168);
  EXPECT_EQ(r.short_count, 4);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.short_count_pct", -1), 50.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.short_time_pct", -1), 100.0 * 8 / 168);
  // Tensor cores: 100 µs of 160 µs of GEMM time use them; the sgemm 60 µs do not.
  EXPECT_EQ(r.tensor_core_ns, 100 * kUs);
  EXPECT_EQ(r.tc_eligible_ns, 160 * kUs);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.tc_eligible_without_tc_pct", -1), 37.5);
  ASSERT_EQ(r.top_eligible_without_tc.size(), 1u);
  EXPECT_EQ(r.classes.front().kernel_class, KernelClass::kGemm);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.class.elementwise_pct", -1), 100.0 * 8 / 168);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.unclassified_pct", -1), 0.0);
}

// A kernel the kernel table cannot read is reported as unclassified time, not as a GEMM
// without tensor cores.
TEST_F(KernelStatsTest, UnclassifiedKernels) {
  Build();
  Op(GpuOpKind::kKernel, "my_fused_thing", 32 * kUs);
  KernelStatsResult r = Run();
  EXPECT_EQ(r.unclassified_ns, 32 * kUs);
  ASSERT_EQ(r.top_unclassified.size(), 1u);
  EXPECT_EQ(r.top_unclassified[0], "my_fused_thing");
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.unclassified_pct", -1), 100.0 * 32 / 200);
  EXPECT_EQ(r.tc_eligible_ns, 160 * kUs);
}

TEST_F(KernelStatsTest, HistogramBuckets) {
  Build();
  KernelStatsResult r = Run();
  int64_t total = 0;
  for (const HistogramBucket& b : r.histogram) {
    total += b.count;
    if (b.lower_ns == 2 * kUs) {
      EXPECT_EQ(b.count, 4);  // [2, 5) µs
    }
    if (b.lower_ns == 100 * kUs) {
      EXPECT_EQ(b.count, 1);  // [100, 200) µs
    }
    if (b.lower_ns == 10 * kUs) {
      EXPECT_EQ(b.count, 1);  // [10, 20) µs
    }
  }
  EXPECT_EQ(total, 8);
  EXPECT_EQ(r.histogram.front().lower_ns, 0);
  EXPECT_EQ(r.histogram.back().lower_ns, kNsPerSec);
}

TEST_F(KernelStatsTest, PerStepCountsByLaunch) {
  Build();  // launches at 0 .. 218 µs
  trace_.steps.rows.push_back({1, trace_.strings.Intern("ProfilerStep#1"), 0, 60 * kUs, 0, 0, 0});
  trace_.steps.rows.push_back(
      {2, trace_.strings.Intern("ProfilerStep#2"), 60 * kUs, 300 * kUs, 0, 0, 0});
  KernelStatsResult r = Run();
  ASSERT_EQ(r.per_step.size(), 2u);
  EXPECT_EQ(r.per_step[0].kernels, 3);  // the sgemms, launched at 0, 10, 30
  EXPECT_EQ(r.per_step[1].kernels, 5);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.per_step", -1), 4.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("kernels.count", -1, MetricScope::Step(2)), 5.0);
}

TEST(HtaTypeBreakdownTest, ExclusiveOverlapRegions) {
  std::vector<ViewOp> ops = {
      {0, 7, 0, 10, kNoLaunch, HtaKernelType::kComputation, false, 0},
      {0, 8, 5, 15, kNoLaunch, HtaKernelType::kCommunication, false, 1},
      {0, 9, 12, 20, kNoLaunch, HtaKernelType::kMemory, false, 2},
      {0, 7, 30, 40, kNoLaunch, HtaKernelType::kComputation, true, kSyncRow},  // skipped
  };
  std::vector<HtaTypeShare> shares = ComputeHtaTypeBreakdown(ops);
  ASSERT_EQ(shares.size(), 5u);
  auto find = [&](const std::string& name) -> DurationNs {
    for (const HtaTypeShare& s : shares) {
      if (s.kernel_type == name) return s.total_ns;
    }
    return -1;
  };
  EXPECT_EQ(find("COMPUTATION"), 5);
  EXPECT_EQ(find("COMPUTATION overlapping COMMUNICATION"), 5);
  EXPECT_EQ(find("COMMUNICATION"), 2);
  EXPECT_EQ(find("COMMUNICATION overlapping MEMORY"), 3);
  EXPECT_EQ(find("MEMORY"), 5);
  EXPECT_DOUBLE_EQ(shares[0].pct, 25.0);
}

TEST_F(KernelStatsTest, NoKernels) {
  KernelStatsResult r = Run();
  EXPECT_EQ(r.kernel_count, 0);
  EXPECT_FALSE(r.not_applicable.empty());
}

// Device names come as the driver spells them ("Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-80GB",
// sometimes lower-cased by tools): the precision a fix may advise must not depend on case.
TEST(LowPrecisionTest, DeviceNamesAreMatchedWhateverTheirCase) {
  EXPECT_EQ(LowPrecisionOfDevice("Tesla V100-SXM2-32GB"), LowPrecisionSupport::kFp16Only);
  EXPECT_EQ(LowPrecisionOfDevice("tesla v100-sxm2-16gb"), LowPrecisionSupport::kFp16Only);
  EXPECT_EQ(LowPrecisionOfDevice("Tesla T4"), LowPrecisionSupport::kFp16Only);
  EXPECT_EQ(LowPrecisionOfDevice("NVIDIA GeForce RTX 2080 Ti"), LowPrecisionSupport::kFp16Only);
  EXPECT_EQ(LowPrecisionOfDevice("NVIDIA A100-SXM4-80GB"), LowPrecisionSupport::kBf16AndTf32);
  EXPECT_EQ(LowPrecisionOfDevice("NVIDIA H100 80GB HBM3"), LowPrecisionSupport::kBf16AndTf32);
  EXPECT_EQ(LowPrecisionOfDevice("NVIDIA GH200 480GB"), LowPrecisionSupport::kBf16AndTf32);
  EXPECT_EQ(LowPrecisionOfDevice("AMD Instinct MI250X"), LowPrecisionSupport::kUnknown);
  EXPECT_EQ(LowPrecisionOfKernel("volta_sgemm_128x64_nn"), LowPrecisionSupport::kFp16Only);
  EXPECT_EQ(LowPrecisionOfKernel("turing_fp16_s1688gemm_fp16_128x128"),
            LowPrecisionSupport::kFp16Only);
  EXPECT_EQ(LowPrecisionOfKernel("void at::native::vectorized_elementwise_kernel<4>"),
            LowPrecisionSupport::kUnknown);
  EXPECT_EQ(LowPrecisionOfKernel("ampere_sgemm_32x128_nn"), LowPrecisionSupport::kBf16AndTf32);
}

}  // namespace kernel_stats_test
}  // namespace gpuwhy
