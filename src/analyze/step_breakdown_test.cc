#include "analyze/step_breakdown.h"

#include <gtest/gtest.h>

#include <numeric>

#include "analyze/step_idle_test_util.h"

namespace gpuwhy {
namespace step_breakdown_test {

using step_idle_test::TinyTrace;

constexpr size_t I(StepCategory c) { return static_cast<size_t>(c); }

StepBreakdownResult Analyse(const Trace& trace, MetricSet& metrics, AnalysisOptions options = {}) {
  DeviceTimelines timelines = BuildDeviceTimelines(trace);
  return ComputeStepBreakdown({trace, timelines, options}, metrics);
}

// Two steps exercising every category; numbers worked out by hand in the comments.
TinyTrace TwoSteps() {
  TinyTrace t;
  t.Step(1, 0, 100);
  t.Slice(t.main(), "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
          CpuSliceKind::kUserAnnotation, 0, 30);
  t.Slice(t.main(), "train.py(12): main", CpuSliceKind::kPython, 0, 100);  // never CPU Exec
  t.Op("aten::conv2d", 30, 60);
  t.Kernel(40, 45, 50, 80);
  t.Launch(t.main(), "cudaMemcpyAsync", 60, 65, GpuOpKind::kMemcpy,
           "Memcpy HtoD (Pinned -> Device)", 80, 90);
  t.Op("aten::foo", 70, 75);
  // Step 1: DL [0,30) 30, CPU [30,40)+[45,50) 15, runtime [40,45) 5, kernel [50,80) 30,
  // memcpy [80,90) 10, other [90,100) 10.
  t.Step(2, 100, 200);
  t.Kernel(110, 115, 190, 250);  // runs past the host end: the step ends at 250
  t.Slice(t.main(), "nccl:all_reduce", CpuSliceKind::kUserAnnotation, 120, 130);
  t.Launch(t.main(), "cudaLaunchKernel", 122, 124, GpuOpKind::kKernel, "my_reduce_kernel", 130,
           140);
  t.Launch(t.main(), "cudaMemsetAsync", 150, 151, GpuOpKind::kMemset, "Memset (Device)", 150, 160);
  // Step 2 [100,250): kernel 60, comm [120,140) 20, memset 10, runtime [110,115) 5, other 55.
  return t;
}

TEST(StepBreakdownTest, ExclusiveCategoriesSumToStepTime) {
  TinyTrace t = TwoSteps();
  MetricSet metrics;
  StepBreakdownResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.steps.size(), 2u);
  const StepCosts& s1 = r.steps[0];
  EXPECT_EQ(s1.window, (Interval{0, 100}));
  EXPECT_EQ(s1.ns[I(StepCategory::kDataLoader)], 30);
  EXPECT_EQ(s1.ns[I(StepCategory::kCpuExec)], 15);
  EXPECT_EQ(s1.ns[I(StepCategory::kRuntime)], 5);
  EXPECT_EQ(s1.ns[I(StepCategory::kKernel)], 30);
  EXPECT_EQ(s1.ns[I(StepCategory::kMemcpy)], 10);
  EXPECT_EQ(s1.ns[I(StepCategory::kOther)], 10);
  const StepCosts& s2 = r.steps[1];
  EXPECT_EQ(s2.window, (Interval{100, 250}));
  EXPECT_EQ(s2.ns[I(StepCategory::kKernel)], 60);
  EXPECT_EQ(s2.ns[I(StepCategory::kCommunication)], 20);
  EXPECT_EQ(s2.ns[I(StepCategory::kMemset)], 10);
  EXPECT_EQ(s2.ns[I(StepCategory::kRuntime)], 5);
  EXPECT_EQ(s2.ns[I(StepCategory::kOther)], 55);
  for (const StepCosts& s : r.steps) {
    EXPECT_EQ(std::accumulate(s.ns.begin(), s.ns.end(), DurationNs{0}), s.total_ns);
  }
  EXPECT_DOUBLE_EQ(r.mean_total_ns, 125);
  EXPECT_DOUBLE_EQ(r.mean_ns[I(StepCategory::kKernel)], 45);
  EXPECT_EQ(r.min_ns, 100);
  EXPECT_EQ(r.max_ns, 150);
  EXPECT_EQ(r.median_ns, 125);
  ASSERT_FALSE(r.slowest_steps.empty());
  EXPECT_EQ(r.slowest_steps[0].start, 100);
  EXPECT_NE(r.slowest_steps[0].label.find("ProfilerStep#2"), std::string::npos);

  EXPECT_DOUBLE_EQ(metrics.ValueOr("step.time_ms", -1, MetricScope::Step(2)), 150e-6);
  EXPECT_DOUBLE_EQ(metrics.ValueOr("step.dataloader_pct", -1, MetricScope::Step(1)), 30);
  EXPECT_DOUBLE_EQ(metrics.ValueOr("step.kernel_pct", -1), 100.0 * 45 / 125);
  EXPECT_DOUBLE_EQ(metrics.ValueOr("step.count", -1), 2);
}

// Host rows are stored thread by thread, so each category's intervals come as one run per
// thread: interleaved threads must still be merged into one timeline (cpu_exec, runtime).
TEST(StepBreakdownTest, ThreadsInterleavedInTimeMergeIntoOneTimeline) {
  TinyTrace t;
  t.Step(1, 0, 100);
  ThreadId worker = t.Thread(2);
  ThreadId third = t.Thread(3);
  t.Slice(t.main(), "aten::a", CpuSliceKind::kOp, 10, 20);
  t.Slice(t.main(), "aten::b", CpuSliceKind::kOp, 50, 60);
  t.Slice(worker, "aten::c", CpuSliceKind::kOp, 5, 15);   // overlaps main's [10,20)
  t.Slice(worker, "aten::d", CpuSliceKind::kOp, 30, 40);  // between main's two
  t.Slice(third, "aten::e", CpuSliceKind::kOp, 0, 3);     // before everything
  t.Slice(third, "aten::f", CpuSliceKind::kOp, 55, 70);   // overlaps main's [50,60)
  t.Launch(worker, "cudaLaunchKernel", 80, 82, GpuOpKind::kKernel, "k", 90, 95);
  t.Launch(t.main(), "cudaLaunchKernel", 70, 72, GpuOpKind::kKernel, "k", 84, 88);
  MetricSet metrics;
  StepBreakdownResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.steps.size(), 1u);
  const StepCosts& s = r.steps[0];
  EXPECT_EQ(s.window, (Interval{0, 100}));
  EXPECT_EQ(s.ns[I(StepCategory::kKernel)], 9);    // [84,88) + [90,95)
  EXPECT_EQ(s.ns[I(StepCategory::kRuntime)], 4);   // [70,72) + [80,82)
  EXPECT_EQ(s.ns[I(StepCategory::kCpuExec)], 48);  // [0,3) [5,20) [30,40) [50,70)
  EXPECT_EQ(s.ns[I(StepCategory::kOther)], 100 - 9 - 4 - 48);
}

TEST(StepExtentsTest, WarmUpWorkDelaysTheFirstStep) {
  TinyTrace t;
  t.Kernel(-40, -35, -10, 20);  // launched before profiling steps began
  t.Step(1, 0, 100);
  t.Kernel(10, 15, 50, 80);
  t.Step(2, 100, 200);
  t.Kernel(110, 115, 120, 130);
  StepExtents e = ComputeStepExtents(t.Finish(), {});
  ASSERT_EQ(e.steps.size(), 2u);
  EXPECT_EQ(e.steps[0].window, (Interval{20, 100}));
  EXPECT_EQ(e.steps[1].window, (Interval{100, 200}));
}

TEST(StepExtentsTest, DropsTailStepsWithMissingGpuWork) {
  TinyTrace t;
  t.Step(1, 0, 100);
  for (int i = 0; i < 5; ++i) t.Kernel(10 * i, 10 * i + 5, 10 * i + 5, 10 * i + 9);
  t.Step(2, 100, 200);
  for (int i = 0; i < 5; ++i) t.Kernel(100 + 10 * i, 105 + 10 * i, 105 + 10 * i, 109 + 10 * i);
  t.Step(3, 200, 300);
  t.Kernel(210, 215, 215, 219);  // 1 op against 5: cut short
  t.Step(4, 300, 400);           // nothing launched
  StepExtents e = ComputeStepExtents(t.Finish(), {});
  ASSERT_EQ(e.steps.size(), 2u);
  EXPECT_EQ(e.excluded, (std::vector<int64_t>{3, 4}));
  AnalysisOptions drop;
  drop.drop_last_step = true;
  EXPECT_EQ(ComputeStepExtents(t.trace(), drop).steps.size(), 1u);
}

TEST(StepBreakdownTest, NoStepsMeansOneWholeTraceStep) {
  TinyTrace t;
  t.Op("aten::add", 0, 10);
  t.Kernel(2, 4, 20, 30);
  MetricSet metrics;
  StepBreakdownResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(r.extents.synthesized);
  EXPECT_EQ(r.steps[0].total_ns, 30);
  EXPECT_EQ(r.steps[0].ns[I(StepCategory::kKernel)], 10);
  EXPECT_FALSE(r.not_applicable.empty());
}

// Without ProfilerStep, a capture that repeats the optimizer's step is cut into iterations at
// each outermost Optimizer.step end (a nested record of the same name is no second step); the
// part after the last one is no iteration.
TEST(StepBreakdownTest, NoProfilerStepButOptimizerStepsGivesIterations) {
  TinyTrace t;
  t.Op("aten::add", 0, 10);
  t.Kernel(2, 4, 20, 30);
  for (TimeNs end : {100, 200, 300}) {
    t.Slice(t.main(), "Optimizer.step#SGD.step", CpuSliceKind::kUserAnnotation, end - 20, end);
    t.Slice(t.main(), "Optimizer.step#SGD.step", CpuSliceKind::kUserAnnotation, end - 15, end - 5);
    t.Kernel(end - 50, end - 45, end - 40, end - 30);
  }
  t.Op("aten::add", 310, 340);  // after the last optimizer step
  MetricSet metrics;
  StepBreakdownResult r = Analyse(t.Finish(), metrics);
  EXPECT_FALSE(r.extents.synthesized);
  ASSERT_EQ(r.extents.steps.size(), 3u);
  EXPECT_EQ(r.extents.steps[0].number, 1);
  EXPECT_EQ(r.extents.steps[0].host, (Interval{0, 100}));
  EXPECT_EQ(r.extents.steps[1].host, (Interval{100, 200}));
  EXPECT_EQ(r.extents.steps[2].host, (Interval{200, 300}));
  EXPECT_EQ(r.extents.steps[2].gpu_op_count, 1);
  bool said = false;
  for (const std::string& note : r.extents.notes)
    said = said || note.find("optimizer") != note.npos;
  EXPECT_TRUE(said);
}

TEST(StepBreakdownTest, EmptyTraceIsNotApplicable) {
  Trace t;
  t.Finalize();
  MetricSet metrics;
  StepBreakdownResult r = Analyse(t, metrics);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_FALSE(r.not_applicable.empty());
  EXPECT_TRUE(metrics.all().empty());
}

}  // namespace step_breakdown_test
}  // namespace gpuwhy
