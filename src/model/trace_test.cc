#include "model/trace.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpuwhy {
namespace trace_test {

CpuSliceTable::Row Slice(Trace& t, ThreadId thread, TimeNs start, TimeNs end, const char* name,
                         CpuSliceKind kind = CpuSliceKind::kOp, int64_t correlation = kNoValue) {
  CpuSliceTable::Row row;
  row.thread = thread;
  row.start = start;
  row.end = end;
  row.name = t.strings.Intern(name);
  row.kind = kind;
  row.correlation = correlation;
  return row;
}

GpuOpTable::Row Kernel(Trace& t, TimeNs start, TimeNs end, int64_t correlation,
                       int64_t stream = 7) {
  GpuOpTable::Row row;
  row.start = start;
  row.end = end;
  row.stream = stream;
  row.correlation = correlation;
  row.name = t.strings.Intern("kernel");
  return row;
}

TEST(TraceTest, NestingCorrelationAndSteps) {
  Trace t;
  ThreadId main = t.GetOrCreateThread(1, 1);
  ThreadId other = t.GetOrCreateThread(1, 2);
  EXPECT_EQ(t.GetOrCreateThread(1, 1), main);
  // Appended out of order on purpose.
  t.cpu_slices.Append(Slice(t, main, 20, 30, "cudaLaunchKernel", CpuSliceKind::kRuntime, 5));
  t.cpu_slices.Append(Slice(t, main, 0, 100, "ProfilerStep#1", CpuSliceKind::kUserAnnotation));
  t.cpu_slices.Append(Slice(t, main, 10, 50, "aten::mm"));
  t.cpu_slices.Append(Slice(t, other, 15, 16, "other thread"));
  t.gpu_ops.Append(Kernel(t, 200, 250, 99));  // no launch
  t.gpu_ops.Append(Kernel(t, 40, 120, 5));
  t.steps.rows.push_back({1, t.strings.Intern("ProfilerStep#1"), 0, 100, 0, 0, 0});
  t.Finalize();

  auto [begin, end] = t.ThreadRows(main);
  ASSERT_EQ(end - begin, 3u);
  EXPECT_EQ(t.Str(t.cpu_slices.name[begin]), "ProfilerStep#1");
  EXPECT_EQ(t.cpu_slices.depth[begin + 2], 2);
  EXPECT_EQ(t.cpu_slices.parent[begin + 2], CpuSliceId(static_cast<uint32_t>(begin + 1)));
  EXPECT_FALSE(t.cpu_slices.parent[begin].valid());

  CpuSliceId launch = t.FindLaunch(5);
  ASSERT_TRUE(launch.valid());
  EXPECT_EQ(t.Str(t.cpu_slices.name[launch.value]), "cudaLaunchKernel");
  ASSERT_EQ(t.FindGpuOps(5).size(), 1u);
  EXPECT_EQ(t.gpu_ops.start[t.FindGpuOps(5)[0].op.value], 40);
  EXPECT_TRUE(t.FindGpuOps(6).empty());
  EXPECT_EQ(t.gpu_ops.start[0], 40);  // sorted by start

  EXPECT_EQ(t.problems.Get(DataProblem::kGpuOpWithoutLaunch), 1);
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps.rows[0].device_start, 40);
  EXPECT_EQ(t.steps.rows[0].device_end, 120);
  EXPECT_EQ(t.steps.rows[0].gpu_op_count, 1);
  EXPECT_EQ(t.span(), (Interval{0, 250}));
  EXPECT_EQ(t.active_devices(), std::vector<int32_t>{0});
}

// Issue 37: correlation ids at both ends of int64 (an Nsight export's +-2^63) span 2^64 ids,
// which once wrapped to a table of 0 rows that both indexes then wrote into.
TEST(TraceTest, CorrelationIdsAcrossTheWholeInt64RangeAreIndexed) {
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();
  Trace t;
  ThreadId main = t.GetOrCreateThread(1, 1);
  t.cpu_slices.Append(Slice(t, main, 10, 20, "cudaLaunchKernel", CpuSliceKind::kRuntime, kHigh));
  t.cpu_slices.Append(Slice(t, main, 30, 40, "cudaLaunchKernel", CpuSliceKind::kRuntime, kLow));
  t.gpu_ops.Append(Kernel(t, 50, 60, kHigh));  // ids descend in start order: not sorted
  t.gpu_ops.Append(Kernel(t, 70, 80, kLow));
  t.gpu_ops.Append(Kernel(t, 90, 95, 0));
  t.Finalize();

  ASSERT_TRUE(t.FindLaunch(kHigh).valid());
  EXPECT_EQ(t.cpu_slices.start[t.FindLaunch(kHigh).value], 10);
  ASSERT_TRUE(t.FindLaunch(kLow).valid());
  EXPECT_EQ(t.cpu_slices.start[t.FindLaunch(kLow).value], 30);
  EXPECT_FALSE(t.FindLaunch(0).valid());
  ASSERT_EQ(t.FindGpuOps(kHigh).size(), 1u);
  EXPECT_EQ(t.gpu_ops.start[t.FindGpuOps(kHigh)[0].op.value], 50);
  ASSERT_EQ(t.FindGpuOps(kLow).size(), 1u);
  EXPECT_EQ(t.gpu_ops.start[t.FindGpuOps(kLow)[0].op.value], 70);
  EXPECT_EQ(t.FindGpuOps(0).size(), 1u);
  EXPECT_TRUE(t.FindGpuOps(1).empty());
}

TEST(TraceTest, NoStepsSynthesizesOneAndCountsOverlaps) {
  Trace t;
  t.gpu_ops.Append(Kernel(t, 0, 100, kNoValue));
  t.gpu_ops.Append(Kernel(t, 50, 150, kNoValue));  // overlaps on the same stream
  t.gpu_ops.Append(Kernel(t, 50, 150, kNoValue, 8));
  t.Finalize();
  EXPECT_TRUE(t.steps.synthesized);
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps.rows[0].host_start, 0);
  EXPECT_EQ(t.steps.rows[0].host_end, 150);
  EXPECT_EQ(t.problems.Get(DataProblem::kOverlappingStreamOps), 1);
  EXPECT_EQ(t.problems.Get(DataProblem::kGpuOpWithoutLaunch), 0);  // no runtime recorded at all
}

TEST(TraceTest, ImproperNestingIsCounted) {
  Trace t;
  ThreadId th = t.GetOrCreateThread(1, 1);
  t.cpu_slices.Append(Slice(t, th, 0, 10, "a"));
  t.cpu_slices.Append(Slice(t, th, 5, 15, "b"));
  t.Finalize();
  EXPECT_EQ(t.problems.Get(DataProblem::kImproperNesting), 1);
}

// Host side read into a second trace (another thread), then joined: the same trace as if
// every row had been appended to one, whether the joining trace had a host side or not.
TEST(TraceTest, AbsorbCpuSideJoinsTheHostHalf) {
  for (bool host_side_already : {false, true}) {
    Trace gpu, host;
    gpu.gpu_ops.Append(Kernel(gpu, 150, 160, 42));
    if (host_side_already) {
      ThreadId early = gpu.GetOrCreateThread(1, 2);
      gpu.cpu_slices.Append(Slice(gpu, early, 10, 20, "early"));
    }
    ThreadId main = host.GetOrCreateThread(1, 2);
    ThreadId other = host.GetOrCreateThread(1, 3);
    host.threads.name[other.value] = host.strings.Intern("loader");
    host.cpu_slices.Append(Slice(host, other, 90, 95, "read"));
    host.cpu_slices.Append(
        Slice(host, main, 100, 200, "cudaLaunchKernel", CpuSliceKind::kRuntime, 42));
    host.problems.Increment(DataProblem::kNegativeDuration, 3);
    gpu.AbsorbCpuSide(std::move(host));
    gpu.Finalize();
    SCOPED_TRACE(host_side_already ? "append" : "move");
    EXPECT_EQ(gpu.threads.size(), 2u);
    EXPECT_EQ(gpu.cpu_slices.size(), host_side_already ? 3u : 2u);
    CpuSliceId launch = gpu.FindLaunch(42);
    ASSERT_TRUE(launch.valid());
    EXPECT_EQ(gpu.Str(gpu.cpu_slices.name[launch.value]), "cudaLaunchKernel");
    ThreadId loader = gpu.GetOrCreateThread(1, 3);
    EXPECT_EQ(gpu.Str(gpu.threads.name[loader.value]), "loader");
    EXPECT_EQ(gpu.problems.Get(DataProblem::kNegativeDuration), 3);
    EXPECT_EQ(gpu.problems.Get(DataProblem::kGpuOpWithoutLaunch), 0);
  }
}

TEST(DataProblemsInTraceTest, TableDrivesIdsAndSeverity) {
  DataProblems stats;
  EXPECT_FALSE(stats.HasErrors());
  stats.Increment(DataProblem::kTruncated);
  EXPECT_EQ(GetDataProblemInfo(DataProblem::kTruncated).id, "truncated");
  EXPECT_FALSE(stats.HasErrors());
  stats.Increment(DataProblem::kTopLevelNotObject);
  EXPECT_TRUE(stats.HasErrors());
}

}  // namespace trace_test
}  // namespace gpuwhy
