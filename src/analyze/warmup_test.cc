#include "analyze/warmup.h"

#include <gtest/gtest.h>

#include "analyze/analysis.h"
#include "analyze/step_idle_test_util.h"

namespace gpuwhy {
namespace warmup_test {

using step_idle_test::TinyTrace;

DurationNs Cause(const WarmupResult& w, WarmupCause c) {
  return w.ns_by_cause[static_cast<size_t>(c)];
}

// |count| steps of 100 µs from ProfilerStep#|first|, each with one 40 µs kernel.
void SteadySteps(TinyTrace& t, int64_t first, int count, TimeNs at) {
  for (int i = 0; i < count; ++i) {
    TimeNs s = at + i * 100;
    t.Step(first + i, s, s + 100);
    t.Kernel(s + 10, s + 12, s + 20, s + 60);
  }
}

TEST(WarmupTest, ContextCreationFillsACaptureWithoutSteps) {
  TinyTrace t(kNsPerUs);
  t.Slice(t.main(), "cudaDeviceGetStreamPriorityRange", CpuSliceKind::kRuntime, 0, 900'000);
  t.Kernel(900'010, 900'012, 900'020, 900'060);
  t.Kernel(950'010, 950'012, 950'020, 950'060);
  const Trace& trace = t.Finish();
  WarmupResult w = ComputeWarmup(trace);
  EXPECT_EQ(Cause(w, WarmupCause::kContextSetup), 900 * kNsPerMs);
  EXPECT_EQ(w.one_off_ns, 900 * kNsPerMs);
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].name, "cudaDeviceGetStreamPriorityRange");

  TraceAnalysis a = AnalyzeTrace(trace);
  EXPECT_TRUE(a.steps.extents.synthesized);
  EXPECT_FALSE(a.steps.extents.steady_state);
  EXPECT_NEAR(a.metrics.ValueOr("warmup.share_pct", -1), 100.0 * 900'000 / 950'060, 0.01);
  EXPECT_NEAR(a.metrics.ValueOr("warmup.context_setup_ms", -1), 900, 1e-9);
}

TEST(WarmupTest, ASlowFirstLaunchIsModuleLoadingAndShortCallsAreNot) {
  TinyTrace t(kNsPerUs);
  SteadySteps(t, 5, 4, 0);
  // A new kernel's 2 ms first launch among 2 µs ones: lazy module loading. A 0.5 ms cudaMalloc
  // in the first step is under 1 ms.
  t.Launch(t.main(), "cudaLaunchKernel", 500, 2'500, GpuOpKind::kKernel, "void new_kernel<float>",
           2'510, 2'520);
  t.Slice(t.main(), "cudaMalloc", CpuSliceKind::kRuntime, 30, 80);
  WarmupResult w = ComputeWarmup(t.Finish());
  EXPECT_EQ(Cause(w, WarmupCause::kModuleLoad), 2 * kNsPerMs);
  EXPECT_EQ(Cause(w, WarmupCause::kAllocation), 0);
}

TEST(WarmupTest, ABlockingCopyOrARepeatKernelLaunchIsNoModuleLoad) {
  TinyTrace t(kNsPerUs);
  SteadySteps(t, 5, 4, 0);
  // A 3 ms cudaMemcpyAsync (pageable D2H) and a 3 ms second launch of a known kernel (queue
  // full): both wait, neither loads a module.
  t.Launch(t.main(), "cudaMemcpyAsync", 500, 3'500, GpuOpKind::kMemcpy, "Memcpy DtoH", 3'500,
           3'502);
  t.Kernel(4'000, 7'000, 7'010, 7'020);
  WarmupResult w = ComputeWarmup(t.Finish());
  EXPECT_EQ(Cause(w, WarmupCause::kModuleLoad), 0);
}

TEST(WarmupTest, AllocationsAfterTheFirstIterationAreChurnNotWarmUp) {
  TinyTrace t(kNsPerUs);
  for (int i = 0; i < 4; ++i) {
    TimeNs s = i * 10'000;
    t.Step(5 + i, s, s + 10'000);
    t.Slice(t.main(), "cudaMalloc", CpuSliceKind::kRuntime, s, s + 6'000);  // every step
    t.Kernel(s + 7'000, s + 7'002, s + 7'010, s + 7'050);
  }
  const Trace& trace = t.Finish();
  WarmupResult w = ComputeWarmup(trace);
  EXPECT_EQ(Cause(w, WarmupCause::kAllocation), 6 * kNsPerMs);  // the first step's only
  EXPECT_EQ(w.leading_warmup_steps, 1u);
  TraceAnalysis a = AnalyzeTrace(trace);
  EXPECT_TRUE(a.steps.extents.steady_state);
  EXPECT_EQ(a.steps.extents.steps.size(), 3u);
}

TEST(WarmupTest, AFirstCallManyTimesItsLaterCallsIsOneOffAndNestingCountsOnce) {
  TinyTrace t(kNsPerUs);
  t.Op("aten::conv2d", 0, 50'000);  // cuDNN autotuning in the first call
  t.Slice(t.main(), "cudaMalloc", CpuSliceKind::kRuntime, 10'000, 15'000);
  for (int i = 1; i <= 3; ++i) t.Op("aten::conv2d", 100'000 * i, 100'000 * i + 1'000);
  t.Op("aten::relu", 500'000, 520'000);  // slow, but called once: nothing to compare with
  WarmupResult w = ComputeWarmup(t.Finish());
  EXPECT_EQ(Cause(w, WarmupCause::kFirstCall), 50 * kNsPerMs);
  EXPECT_EQ(Cause(w, WarmupCause::kAllocation), 5 * kNsPerMs);
  EXPECT_EQ(w.one_off_ns, 50 * kNsPerMs);  // the cudaMalloc lies inside the first conv2d
}

TEST(WarmupTest, DataLoaderStartUpIsTheFirstNextOnly) {
  TinyTrace t(kNsPerUs);
  const std::string next = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
  t.Slice(t.main(), next, CpuSliceKind::kUserAnnotation, 0, 400'000);
  for (int i = 1; i <= 4; ++i) {
    t.Slice(t.main(), next, CpuSliceKind::kUserAnnotation, 500'000 * i, 500'000 * i + 2'000);
  }
  WarmupResult w = ComputeWarmup(t.Finish());
  EXPECT_EQ(Cause(w, WarmupCause::kDataLoaderStart), 400 * kNsPerMs);
  EXPECT_EQ(Cause(w, WarmupCause::kFirstCall), 0);
}

TEST(WarmupTest, LeadingStepsOfOneOffTimeAreLeftOutOfTheSteadyState) {
  TinyTrace t(kNsPerUs);
  t.Step(5, 0, 10'000);
  t.Slice(t.main(), "cudaMalloc", CpuSliceKind::kRuntime, 0, 8'000);  // 80% of the step
  t.Kernel(9'000, 9'002, 9'010, 9'050);
  SteadySteps(t, 6, 4, 10'000);
  const Trace& trace = t.Finish();
  EXPECT_EQ(ComputeWarmup(trace).leading_warmup_steps, 1u);
  TraceAnalysis a = AnalyzeTrace(trace);
  const StepExtents& e = a.steps.extents;
  EXPECT_TRUE(e.steady_state);
  EXPECT_EQ(e.warmup, (std::vector<int64_t>{5}));
  ASSERT_FALSE(e.steps.empty());
  EXPECT_EQ(e.steps.front().number, 6);
  EXPECT_EQ(a.metrics.ValueOr("warmup.steps_excluded", -1), 1);
  // From the capture start to the first steady step: 10,000 of 10,400 µs (the last step ends
  // at 10,400).
  EXPECT_NEAR(a.metrics.ValueOr("warmup.share_pct", -1), 100.0 * 10'000 / 10'400, 0.01);
  EXPECT_EQ(a.metrics.ValueOr("step.count", -1), static_cast<double>(e.steps.size()));
}

TEST(WarmupTest, AnOutlierFirstStepIsWarmUpAndASteadyCaptureHasNone) {
  TinyTrace outlier(kNsPerUs);
  outlier.Step(10, 0, 400);
  outlier.Kernel(10, 12, 20, 60);
  SteadySteps(outlier, 11, 3, 400);
  EXPECT_EQ(ComputeWarmup(outlier.Finish()).leading_warmup_steps, 1u);

  TinyTrace steady(kNsPerUs);
  SteadySteps(steady, 10, 4, 0);
  const Trace& trace = steady.Finish();
  WarmupResult w = ComputeWarmup(trace);
  EXPECT_EQ(w.leading_warmup_steps, 0u);
  EXPECT_EQ(w.one_off_ns, 0);
  TraceAnalysis a = AnalyzeTrace(trace);
  EXPECT_TRUE(a.steps.extents.steady_state);
  EXPECT_TRUE(a.steps.extents.warmup.empty());
  EXPECT_EQ(a.metrics.ValueOr("warmup.share_pct", -1), 0);
}

TEST(WarmupTest, TheJobsFirstIterationAloneIsNoSteadyState) {
  TinyTrace t(kNsPerUs);
  t.Step(1, 0, 13'000);
  t.Kernel(12'000, 12'002, 12'010, 12'012);
  TraceAnalysis a = AnalyzeTrace(t.Finish());
  EXPECT_FALSE(a.steps.extents.steady_state);
  EXPECT_EQ(a.steps.extents.steps.size(), 1u);  // kept for the metrics
  EXPECT_TRUE(a.steps.extents.warmup.empty());
}

}  // namespace warmup_test
}  // namespace gpuwhy
