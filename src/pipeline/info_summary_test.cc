#include "pipeline/info_summary.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace info_summary_test {

// A two-step trace built by hand, as an importer would fill it.
Trace MakeTrace() {
  Trace trace;
  trace.metadata.path = "rank_1.json";
  trace.metadata.format = "kineto";
  trace.metadata.schema = SchemaGeneration::kModern;
  trace.rank.rank = 1;
  trace.rank.world_size = 2;
  trace.rank.source = RankSource::kDistributedInfo;
  DeviceTable::Row device;
  device.id = 0;
  device.name = trace.strings.Intern("NVIDIA H100");
  device.sm_count = 132;
  device.total_memory_bytes = int64_t{80} << 30;
  device.compute_major = 9;
  device.compute_minor = 0;
  trace.devices.rows.push_back(device);
  ThreadId thread = trace.GetOrCreateThread(10, 11);
  StringId step_name = trace.strings.Intern("ProfilerStep#7");
  trace.steps.rows.push_back({7, step_name, 0, MsToNs(10), 0, 0, 0});
  trace.steps.rows.push_back({8, step_name, MsToNs(10), MsToNs(30), 0, 0, 0});
  const auto slice = [&](CpuSliceKind kind, TimeNs start, TimeNs end, int64_t correlation) {
    CpuSliceTable::Row row;
    row.thread = thread;
    row.start = start;
    row.end = end;
    row.name = trace.strings.Intern("x");
    row.kind = kind;
    row.correlation = correlation;
    trace.cpu_slices.Append(row);
  };
  slice(CpuSliceKind::kOp, 0, MsToNs(5), kNoValue);
  slice(CpuSliceKind::kRuntime, UsToNs(10), UsToNs(20), 1);
  slice(CpuSliceKind::kRuntime, UsToNs(30), UsToNs(40), 2);
  slice(CpuSliceKind::kPython, MsToNs(11), MsToNs(12), kNoValue);
  const auto op = [&](GpuOpKind kind, CopyDirection direction, MemoryKind src, int64_t bytes,
                      int32_t device_id) {
    GpuOpTable::Row row;
    row.kind = kind;
    row.device = device_id;
    row.start = UsToNs(100 * (static_cast<int64_t>(trace.gpu_ops.size()) + 1));
    row.end = row.start + UsToNs(50);
    row.name = trace.strings.Intern("op");
    row.copy_direction = direction;
    row.src_kind = src;
    row.dst_kind =
        direction == CopyDirection::kUnknown ? MemoryKind::kUnknown : MemoryKind::kDevice;
    row.bytes = bytes;
    trace.gpu_ops.Append(row);
  };
  op(GpuOpKind::kKernel, CopyDirection::kUnknown, MemoryKind::kUnknown, kNoValue, 0);
  op(GpuOpKind::kKernel, CopyDirection::kUnknown, MemoryKind::kUnknown, kNoValue, 1);
  op(GpuOpKind::kMemcpy, CopyDirection::kHostToDevice, MemoryKind::kPageable, 100, 0);
  op(GpuOpKind::kMemcpy, CopyDirection::kHostToDevice, MemoryKind::kPageable, 50, 0);
  op(GpuOpKind::kMemcpy, CopyDirection::kHostToDevice, MemoryKind::kPinned, 10, 0);
  op(GpuOpKind::kMemset, CopyDirection::kUnknown, MemoryKind::kUnknown, kNoValue, 0);
  trace.problems.Add(DataProblem::kTruncated, "at byte 1234");
  trace.Finalize();
  return trace;
}

TEST(InfoSummaryTest, CountsByKind) {
  InfoSummary s = ComputeInfoSummary(MakeTrace());
  EXPECT_EQ(FindCount(s, "kernels"), 2);
  EXPECT_EQ(FindCount(s, "memcpy"), 3);
  EXPECT_EQ(FindCount(s, "memset"), 1);
  EXPECT_EQ(FindCount(s, "runtime_calls"), 2);
  EXPECT_EQ(FindCount(s, "cpu_ops"), 1);
  EXPECT_EQ(FindCount(s, "python_frames"), 1);
  EXPECT_EQ(FindCount(s, "driver_calls"), 0);
  EXPECT_EQ(FindCount(s, "threads"), 1);
  EXPECT_EQ(FindCount(s, "no_such_count"), -1);
}

TEST(InfoSummaryTest, MemcpyByDirectionAndMemoryKind) {
  InfoSummary s = ComputeInfoSummary(MakeTrace());
  ASSERT_EQ(s.memcpy.size(), 2u);
  EXPECT_EQ(s.memcpy[0].src_kind, MemoryKind::kPageable);
  EXPECT_EQ(s.memcpy[0].count, 2);
  EXPECT_EQ(s.memcpy[0].bytes, 150);
  EXPECT_EQ(s.memcpy[1].src_kind, MemoryKind::kPinned);
  EXPECT_EQ(s.memcpy[1].count, 1);
}

TEST(InfoSummaryTest, StepsDevicesRankAndStats) {
  InfoSummary s = ComputeInfoSummary(MakeTrace());
  EXPECT_EQ(s.step_count, 2);
  EXPECT_FALSE(s.steps_synthesized);
  EXPECT_EQ(s.first_step, 7);
  EXPECT_EQ(s.last_step, 8);
  EXPECT_EQ(s.mean_step_ns, MsToNs(15));
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.world_size, 2);
  ASSERT_EQ(s.devices.size(), 2u);  // device 1 ran work without a properties entry
  EXPECT_EQ(s.devices[0].name, "NVIDIA H100");
  EXPECT_TRUE(s.devices[1].active);
  EXPECT_TRUE(s.devices[1].name.empty());
  // Truncated comes first (catalog order); Finalize adds gpu_op_without_launch after it.
  ASSERT_GE(s.problems.Kinds().size(), 1u);
  EXPECT_EQ(s.problems.Kinds()[0], DataProblem::kTruncated);
  EXPECT_EQ(s.problems.Get(DataProblem::kTruncated), 1);
  EXPECT_EQ(s.problems.Detail(DataProblem::kTruncated), "at byte 1234");
  for (DataProblem kind : s.problems.Kinds()) EXPECT_NE(s.problems.Get(kind), 0);
}

TEST(InfoSummaryTest, TraceWithoutStepsHasOneSynthesizedStep) {
  Trace trace;
  trace.Finalize();
  InfoSummary s = ComputeInfoSummary(trace);
  EXPECT_TRUE(s.steps_synthesized);
  EXPECT_EQ(s.first_step, kNoValue);
  EXPECT_EQ(FindCount(s, "kernels"), 0);
  EXPECT_TRUE(s.problems.empty());
}

}  // namespace info_summary_test
}  // namespace gpuwhy
