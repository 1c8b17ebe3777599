// The replay on hand-written traces (the graph's edges, the replay error, the critical path's
// classes, a what-if) and on real ones: HolisticTraceAnalysis' critical path on its own test
// trace, and the ResNet-50 DataLoader fix predicted from the run before it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "analyze/host_activity.h"
#include "ingest/kineto/kineto_importer.h"
#include "replay/dependency_graph.h"
#include "replay/replay.h"
#include "replay/simulate.h"

namespace gpuwhy {
namespace replay_test {

namespace fs = std::filesystem;
const fs::path kKineto = fs::path(GPUWHY_SHARED_DATA) / "kineto";

// A host thread with ProfilerStep#1..3; each step: a DataLoader wait of |load_us|, then a
// launch of a |kernel_us| kernel, then cudaStreamSynchronize until it ends.
Trace InputBoundTrace(int64_t load_us, int64_t kernel_us) {
  Trace t;
  ThreadId th = t.GetOrCreateThread(1, 1);
  int64_t corr = 1;
  TimeNs now = 0;
  auto us = [](int64_t v) { return v * kNsPerUs; };
  for (int step = 1; step <= 4; ++step) {
    const TimeNs step_start = now;
    now += us(10);
    t.cpu_slices.Append(
        {th, now, now + us(load_us),
         t.strings.Intern("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
         CpuSliceKind::kUserAnnotation});
    now += us(load_us) + us(5);
    t.cpu_slices.Append(
        {th, now, now + us(5), t.strings.Intern("cudaLaunchKernel"), CpuSliceKind::kRuntime, corr});
    const TimeNs kernel_start = now + us(5);
    t.gpu_ops.Append({GpuOpKind::kKernel, 0, 7, kernel_start, kernel_start + us(kernel_us),
                      t.strings.Intern("volta_sgemm_128x64_nn"), corr});
    ++corr;
    now += us(10);
    const TimeNs sync_end = kernel_start + us(kernel_us) + us(2);
    t.cpu_slices.Append({th, now, sync_end, t.strings.Intern("cudaStreamSynchronize"),
                         CpuSliceKind::kRuntime, corr++});
    now = sync_end + us(3);
    const StringId name = t.strings.Intern("ProfilerStep#" + std::to_string(step));
    t.cpu_slices.Append({th, step_start, now, name, CpuSliceKind::kUserAnnotation});
    t.steps.rows.push_back({step, name, step_start, now});
  }
  t.Finalize();
  return t;
}

TEST(ReplayTest, GraphLinksLaunchStreamAndSync) {
  Trace t = InputBoundTrace(100, 50);
  HostActivity host = ClassifyHostActivity(t);
  DependencyGraph g = BuildDependencyGraph(t, host);
  int64_t launches = 0, syncs = 0, busy = 0;
  for (size_t e = 0; e < g.edge_count(); ++e) {
    launches += g.kind[e] == DepEdgeKind::kLaunch;
    syncs += g.kind[e] == DepEdgeKind::kSync;
    busy += g.kind[e] == DepEdgeKind::kGpuBusy;
  }
  EXPECT_EQ(launches, 4);
  EXPECT_EQ(busy, 4);
  EXPECT_EQ(syncs, 4);  // every synchronize waited for its step's kernel
  EXPECT_EQ(g.sync_waits, 4);
  EXPECT_EQ(g.launch_latency_ns, 5 * kNsPerUs);
}

TEST(ReplayTest, ReplayReproducesStepsAndInputWhatIfSavesTheLoad) {
  Trace t = InputBoundTrace(100, 50);
  TraceAnalysis analysis = AnalyzeTrace(t);
  ReplayResult r = ComputeReplay(t, analysis);
  ASSERT_TRUE(r.available) << r.not_applicable;
  EXPECT_LT(r.error_max_pct, 0.5);
  // The path's pieces sum to the step; the DataLoader wait is its largest piece.
  EXPECT_EQ(r.critical_path_ns, r.replayed_median_ns);
  EXPECT_EQ(r.class_ns[static_cast<size_t>(PathClass::kInput)], 100 * kNsPerUs);
  EXPECT_EQ(r.class_ns[static_cast<size_t>(PathClass::kKernelGemm)], 50 * kNsPerUs);
  const WhatIfResult* input = r.Find(WhatIf::kInputRemoved);
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->saving_ns, 100 * kNsPerUs);
  // Without the synchronize the host would not wait for the kernel: 52 µs less, but the next
  // step's kernel still queues behind it, so the saving is smaller than the wait.
  const WhatIfResult* syncs = r.Find(WhatIf::kSyncsRemoved);
  ASSERT_NE(syncs, nullptr);
  EXPECT_GT(syncs->saving_ns, 0);
  EXPECT_LE(syncs->saving_ns, 52 * kNsPerUs);
  // Both fixes together: replayed, not the sum of the two savings.
  ASSERT_EQ(r.what_if_pairs.size(), 1u);
  EXPECT_GE(r.what_if_pairs[0].saving_ns, input->saving_ns);
  EXPECT_LE(r.what_if_pairs[0].saving_ns, input->saving_ns + syncs->saving_ns);
}

// A long capture replays its middle steps alone, in a graph of their window only.
TEST(ReplayTest, ALongCaptureReplaysItsMiddleStepsInTheirWindow) {
  Trace t = InputBoundTrace(100, 50);
  TraceAnalysis analysis = AnalyzeTrace(t);
  ReplayResult all = ComputeReplay(t, analysis);
  ReplayResult sampled = ComputeReplay(t, analysis, {.max_steps = 1});
  ASSERT_TRUE(sampled.available) << sampled.not_applicable;
  ASSERT_EQ(sampled.steps.size(), 1u);
  EXPECT_EQ(sampled.steps[0].number, 3);  // the middle of steady steps 2, 3, 4
  EXPECT_LT(sampled.points, all.points);
  EXPECT_LT(sampled.error_max_pct, 0.5);
  ASSERT_NE(sampled.Find(WhatIf::kInputRemoved), nullptr);
  EXPECT_EQ(sampled.Find(WhatIf::kInputRemoved)->saving_ns, 100 * kNsPerUs);
}

// Two streams, no cuda_sync record: stream 8's kernel is launched early but starts |start_us|.
Trace TwoStreamTrace(int64_t start_us) {
  Trace t;
  ThreadId th = t.GetOrCreateThread(1, 1);
  auto us = [](int64_t v) { return v * kNsPerUs; };
  t.cpu_slices.Append(
      {th, 0, us(5), t.strings.Intern("cudaLaunchKernel"), CpuSliceKind::kRuntime, 1});
  t.cpu_slices.Append(
      {th, us(20), us(25), t.strings.Intern("cudaLaunchKernel"), CpuSliceKind::kRuntime, 2});
  t.gpu_ops.Append({GpuOpKind::kKernel, 0, 7, us(10), us(1010), t.strings.Intern("gemm_a"), 1});
  t.gpu_ops.Append(
      {GpuOpKind::kKernel, 0, 8, us(start_us), us(start_us + 100), t.strings.Intern("gemm_b"), 2});
  t.Finalize();
  return t;
}

TEST(ReplayTest, LateStartRightAfterAnotherStreamsOpIsAnInferredWait) {
  for (int64_t start_us : {1012, 1025, 1500}) {
    Trace t = TwoStreamTrace(start_us);
    DependencyGraph g = BuildDependencyGraph(t, ClassifyHostActivity(t));
    // Within 20 us of stream 7's op end: it waited for it; later: nothing explains the start.
    EXPECT_EQ(g.inferred_waits, start_us <= 1030 ? 1 : 0) << start_us;
  }
}

// HTA's overlaid result on its own end-to-end test trace: the path HTA drew runs from
// 1694039968956739 to 1694040010534392 µs and skips 142,581 µs over its zero-weight edges
// (dependency edges between top-level ops, sync edges): 41,435,072 µs.
TEST(ReplayTest, MatchesHolisticTraceAnalysisCriticalPath) {
  const fs::path path =
      kKineto / "hta" /
      "critical_path_end_to_end_simple_add_output_overlaid_critical_path_trace.json.gz";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent: real-trace test skipped";
  auto trace = ImportKinetoFile(path.string());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  HostActivity host = ClassifyHostActivity(*trace);
  DependencyGraph g = BuildDependencyGraph(*trace, host, {.hta = true});
  const double hta_us = 41435072;
  const double ours_us = static_cast<double>(HtaCriticalPathLength(g)) / kNsPerUs;
  EXPECT_NEAR(ours_us, hta_us, 0.01 * hta_us);
  std::printf("HTA critical path %.0f us, gpuwhy %.0f us (%+.3f%%)\n", hta_us, ours_us,
              100.0 * (ours_us - hta_us) / hta_us);
}

// HTA's other critical-path test traces: the host's cudaEventSynchronize waits on a kernel; the
// multi-stream one also makes a stream wait on another's event (a cuda_sync record). The
// simple-add benchmark is the trace HTA's overlaid result was computed from.
TEST(ReplayTest, HtaCriticalPathTracesGetTheirWaitEdges) {
  const fs::path hta = kKineto / "hta";
  const fs::path event_sync = hta / "critical_path_cuda_event_sync_event_sync_trace.json.gz";
  const fs::path multi_stream =
      hta / "critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz";
  const fs::path simple_add =
      hta / "critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz";
  if (!fs::exists(event_sync) || !fs::exists(multi_stream) || !fs::exists(simple_add))
    GTEST_SKIP() << "HTA's critical-path traces are absent: real-trace test skipped";
  auto graph_of = [](const fs::path& path) {
    auto trace = ImportKinetoFile(path.string());
    EXPECT_TRUE(trace.ok()) << path;
    if (!trace.ok()) return DependencyGraph{};
    return BuildDependencyGraph(*trace, ClassifyHostActivity(*trace), {.hta = true});
  };
  EXPECT_EQ(graph_of(event_sync).sync_waits, 1);
  DependencyGraph multi = graph_of(multi_stream);
  EXPECT_EQ(multi.sync_waits, 1);
  EXPECT_EQ(multi.event_waits, 1);
  const double simple_add_us =
      static_cast<double>(HtaCriticalPathLength(graph_of(simple_add))) / kNsPerUs;
  EXPECT_NEAR(simple_add_us, 41435072, 0.01 * 41435072);
}

ReplayResult ReplayFile(const fs::path& path, DurationNs* measured_median = nullptr) {
  auto trace = ImportKinetoFile(path.string());
  EXPECT_TRUE(trace.ok()) << path;
  if (!trace.ok()) return {};
  TraceAnalysis analysis = AnalyzeTrace(*trace);
  ReplayResult r = ComputeReplay(*trace, analysis);
  if (measured_median != nullptr) *measured_median = r.measured_median_ns;
  return r;
}

TEST(ReplayTest, ResnetInputFixPredictsTheRunWithWorkers) {
  const fs::path before =
      kKineto / "kineto_tb_plugin" / "2d19c63_resnet50_num_workers_0__worker0.pt.trace.json.gz";
  const fs::path after =
      kKineto / "kineto_tb_plugin" / "7bd25bd_resnet50_num_workers_4__worker0.pt.trace.json.gz";
  if (!fs::exists(before) || !fs::exists(after))
    GTEST_SKIP() << "the ResNet-50 pair is absent: real-trace test skipped";
  ReplayResult r = ReplayFile(before);
  ASSERT_TRUE(r.available) << r.not_applicable;
  const WhatIfResult* input = r.Find(WhatIf::kInputRemoved);
  ASSERT_NE(input, nullptr);
  DurationNs measured_after = 0;
  ReplayFile(after, &measured_after);
  ASSERT_GT(measured_after, 0);
  const double error =
      static_cast<double>(input->step_ns - measured_after) / static_cast<double>(measured_after);
  std::printf("before %.1f ms, predicted %.1f ms, measured after %.1f ms (%+.1f%%)\n",
              static_cast<double>(r.measured_median_ns) / kNsPerMs,
              static_cast<double>(input->step_ns) / kNsPerMs,
              static_cast<double>(measured_after) / kNsPerMs, 100 * error);
  EXPECT_LE(std::fabs(error), 0.10);
}

}  // namespace replay_test
}  // namespace gpuwhy
