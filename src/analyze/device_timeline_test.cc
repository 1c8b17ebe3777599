#include "analyze/device_timeline.h"

#include <gtest/gtest.h>

#include "analyze/analysis.h"

namespace gpuwhy {
namespace device_timeline_test {

void AddOp(Trace& t, GpuOpKind kind, const char* name, TimeNs start, TimeNs end,
           int32_t device = 0) {
  GpuOpTable::Row row;
  row.kind = kind;
  row.name = t.strings.Intern(name);
  row.start = start;
  row.end = end;
  row.device = device;
  t.gpu_ops.Append(row);
}

TEST(DeviceTimelineTest, SplitsByDeviceAndType) {
  Trace t;
  AddOp(t, GpuOpKind::kKernel, "volta_sgemm_128x64_nn", 0, 10);
  AddOp(t, GpuOpKind::kKernel, "ncclKernel_AllReduce_RING_LL_Sum_float", 5, 20);
  AddOp(t, GpuOpKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)", 30, 40);
  AddOp(t, GpuOpKind::kKernel, "elementwise_kernel", 0, 5, 1);
  t.Finalize();
  DeviceTimelines timelines = BuildDeviceTimelines(t);
  ASSERT_EQ(timelines.by_device.size(), 2u);
  const DeviceTimeline& d0 = timelines.by_device.at(0);
  EXPECT_EQ(d0.span, (Interval{0, 40}));
  EXPECT_EQ(d0.kernels.TotalLength(), 20);
  EXPECT_EQ(d0.all_ops.TotalLength(), 30);
  EXPECT_EQ(d0.computation.TotalLength(), 10);
  EXPECT_EQ(d0.communication.TotalLength(), 15);
  EXPECT_EQ(d0.memory.TotalLength(), 10);
  EXPECT_EQ(d0.op_rows.size(), 3u);
  // Device 0's sets differ: none is shared.
  EXPECT_FALSE(d0.all_ops.SharedWith(d0.kernels));
  EXPECT_FALSE(d0.computation.SharedWith(d0.kernels));
}

// A set whose ops are exactly another set's ops is that set, held once (issue 37).
TEST(DeviceTimelineTest, SetsOfTheSameOpsAreHeldOnce) {
  Trace t;
  // Device 0: computing kernels only. Device 1: a copy too. Device 2: a communication kernel.
  AddOp(t, GpuOpKind::kKernel, "volta_sgemm_128x64_nn", 0, 10);
  AddOp(t, GpuOpKind::kKernel, "elementwise_kernel", 5, 20);
  AddOp(t, GpuOpKind::kKernel, "volta_sgemm_128x64_nn", 0, 10, 1);
  AddOp(t, GpuOpKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)", 30, 40, 1);
  AddOp(t, GpuOpKind::kKernel, "volta_sgemm_128x64_nn", 0, 10, 2);
  AddOp(t, GpuOpKind::kKernel, "ncclKernel_AllReduce_RING_LL_Sum_float", 20, 30, 2);
  t.Finalize();
  DeviceTimelines timelines = BuildDeviceTimelines(t);
  const DeviceTimeline& d0 = timelines.by_device.at(0);
  EXPECT_TRUE(d0.all_ops.SharedWith(d0.kernels));
  EXPECT_TRUE(d0.computation.SharedWith(d0.kernels));
  EXPECT_EQ(d0.computation.intervals(), (std::vector<Interval>{{0, 20}}));
  const DeviceTimeline& d1 = timelines.by_device.at(1);
  EXPECT_FALSE(d1.all_ops.SharedWith(d1.kernels));
  EXPECT_TRUE(d1.computation.SharedWith(d1.kernels));
  EXPECT_EQ(d1.all_ops.TotalLength(), 20);
  EXPECT_EQ(d1.memory.TotalLength(), 10);
  const DeviceTimeline& d2 = timelines.by_device.at(2);
  EXPECT_TRUE(d2.all_ops.SharedWith(d2.kernels));
  EXPECT_FALSE(d2.computation.SharedWith(d2.kernels));
  EXPECT_EQ(d2.computation.TotalLength(), 10);
  EXPECT_EQ(d2.communication.TotalLength(), 10);
  // A default timeline reads as empty sets.
  DeviceTimeline empty;
  EXPECT_TRUE(empty.kernels.empty());
  EXPECT_EQ(empty.all_ops.CoveredLength({0, 100}), 0);
}

TEST(KernelClassTest, Classes) {
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kKernel, "volta_sgemm_128x64_nn"), KernelClass::kGemm);
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kKernel, "void cudnn::cnn::wgrad_alg0_engine<float>"),
            KernelClass::kConvolution);
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kKernel, "flash_fwd_kernel"), KernelClass::kAttention);
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kKernel, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
            KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kMemset, "Memset (Device)"), KernelClass::kCopy);
  EXPECT_FALSE(UsesTensorCores("volta_sgemm_128x64_nn"));
  EXPECT_TRUE(UsesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
  EXPECT_TRUE(UsesTensorCores("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"));
  // cuBLAS's CUDA-core fp32 kernels inside the xmma family name the FFMA they run.
  EXPECT_FALSE(UsesTensorCores(
      "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4"));
  EXPECT_TRUE(UsesTensorCores("sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x16_ffma"));
}

TEST(AnalyzeTraceTest, RunsOnAnEmptyTrace) {
  Trace t;
  t.Finalize();
  TraceAnalysis a = AnalyzeTrace(t);
  EXPECT_TRUE(a.timelines.by_device.empty());
}

}  // namespace device_timeline_test
}  // namespace gpuwhy
