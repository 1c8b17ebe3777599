// The legacy Chrome-trace form of PyTorch without Kineto. The fixture is written by hand in
// the exact shape torch 1.13's EventList.export_chrome_trace writes (a bare array, "ph": "X",
// pid "CPU functions", "args": {}); tests/python/legacy_trace_test.py checks a trace the real
// Debian python3-torch writes.
#include "ingest/kineto/legacy_profiler_form.h"

#include <gtest/gtest.h>

#include <string>

#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {
namespace legacy_profiler_form_test {

constexpr const char* kLegacy =
    R"json([{"name": "aten::zeros", "ph": "X", "ts": 135, "dur": 20, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "ProfilerStep#6", "ph": "X", "ts": 179, "dur": 9356, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "ph": "X", "ts": 203, "dur": 8715, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::addmm", "ph": "X", "ts": 8950, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {"Input Dims": [[4], [4, 16], [16, 4]]}}, {"name": "AddmmBackward0", "ph": "X", "ts": 9100, "dur": 30, "tid": 7, "pid": "CPU functions", "args": {}}, {"name": "Optimizer.step#SGD.step", "ph": "X", "ts": 9481, "dur": 46, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "my_scope", "ph": "X", "ts": 9490, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "ProfilerStep#7", "ph": "X", "ts": 9561, "dur": 9483, "tid": 1, "pid": "CPU functions", "args": {}}])json";

TEST(LegacyProfilerFormTest, KindsFollowTheNames) {
  EXPECT_EQ(LegacyProfilerSliceKind("ProfilerStep#6"), CpuSliceKind::kUserAnnotation);
  EXPECT_EQ(LegacyProfilerSliceKind("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
            CpuSliceKind::kUserAnnotation);
  EXPECT_EQ(LegacyProfilerSliceKind("Optimizer.step#SGD.step"), CpuSliceKind::kUserAnnotation);
  EXPECT_EQ(LegacyProfilerSliceKind("my_scope"), CpuSliceKind::kUserAnnotation);
  EXPECT_EQ(LegacyProfilerSliceKind("aten::mm"), CpuSliceKind::kOp);
  EXPECT_EQ(LegacyProfilerSliceKind("autograd::engine::evaluate_function: AddmmBackward0"),
            CpuSliceKind::kOp);
  EXPECT_EQ(LegacyProfilerSliceKind("AddmmBackward0"), CpuSliceKind::kOp);
  EXPECT_EQ(LegacyProfilerSliceKind("CopyBackwards"), CpuSliceKind::kOp);
  EXPECT_EQ(LegacyProfilerSliceKind("Backward"), CpuSliceKind::kUserAnnotation);
}

TEST(LegacyProfilerFormTest, TheBareArrayImportsAsHostSlicesWithSteps) {
  auto imported = ImportKinetoBytes(kLegacy, "legacy.json");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Trace& t = *imported;
  EXPECT_EQ(t.metadata.schema, SchemaGeneration::kLegacyProfiler);
  EXPECT_EQ(t.metadata.vendor, GpuVendor::kNone);
  EXPECT_EQ(t.problems.Get(DataProblem::kUnknownCategory), 0);
  ASSERT_EQ(t.cpu_slices.size(), 8u);
  EXPECT_EQ(t.gpu_ops.size(), 0u);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps.rows[0].number, 6);
  EXPECT_EQ(t.steps.rows[0].host_start, 179000);
  EXPECT_EQ(t.steps.rows[0].host_end, 179000 + 9356000);
  EXPECT_EQ(t.steps.rows[1].number, 7);
  int annotations = 0;
  int ops = 0;
  bool shapes = false;
  for (size_t i = 0; i < t.cpu_slices.size(); ++i) {
    if (t.cpu_slices.kind[i] == CpuSliceKind::kUserAnnotation) ++annotations;
    if (t.cpu_slices.kind[i] == CpuSliceKind::kOp) ++ops;
    if (t.Str(t.cpu_slices.name[i]) == "aten::addmm") {
      shapes = t.Str(t.cpu_slices.input_dims[i]) == "[[4], [4, 16], [16, 4]]";
    }
  }
  EXPECT_EQ(annotations, 5);  // two steps, the DataLoader, the optimizer, my_scope
  EXPECT_EQ(ops, 3);
  EXPECT_TRUE(shapes) << "Input Dims, when a writer adds them, are kept";
  // The autograd thread (tid 7) is a second host thread of the same process.
  EXPECT_EQ(t.threads.size(), 2u);
}

TEST(LegacyProfilerFormTest, OnlyTheLegacyPidWithoutCategoryIsLegacy) {
  KinetoEvent e;
  e.pid.present = true;
  e.pid.text = "CPU functions";
  EXPECT_TRUE(IsLegacyProfilerEvent(e));
  e.cat = "cpu_op";
  EXPECT_FALSE(IsLegacyProfilerEvent(e));
  e.cat = {};
  e.pid.text = "Spans";
  EXPECT_FALSE(IsLegacyProfilerEvent(e));
  // A category-less event of any other trace stays an unknown category.
  auto imported = ImportKinetoBytes(
      R"([{"name": "x", "ph": "X", "ts": 1, "dur": 1, "pid": 3, "tid": 1}])", "other.json");
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(imported->problems.Get(DataProblem::kUnknownCategory), 1);
  EXPECT_EQ(imported->cpu_slices.size(), 0u);
}

}  // namespace legacy_profiler_form_test
}  // namespace gpuwhy
