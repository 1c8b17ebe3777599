// Ground truth from the scenario generator: the step breakdown and the idle-gap attribution
// recover each injected stall within 2% of step time.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analyze/analysis.h"
#include "analyze/idle_gaps.h"
#include "analyze/kernel_stats.h"
#include "analyze/step_breakdown.h"
#include "ingest/kineto/kineto_importer.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace synth_ground_truth_test {

namespace fs = std::filesystem;

struct SynthRun {
  std::string truth;  // the .truth.json text
  MetricSet metrics;
  StepBreakdownResult steps;
  IdleGapsResult idle;
};

// Reads `"key": <integer>` from the truth JSON (flat keys are unique in it).
int64_t TruthInt(const std::string& truth, const std::string& key) {
  size_t at = truth.find("\"" + key + "\":");
  if (at == std::string::npos) {
    ADD_FAILURE() << "truth has no " << key;
    return 0;
  }
  return std::strtoll(truth.c_str() + at + key.size() + 3, nullptr, 10);
}

void Synthesize(const std::string& scenario, SynthRun& run) {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("gpuwhy_step_idle_" + scenario + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string out = (dir / "trace.json").string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = 12;
  ASSERT_TRUE(WriteSyntheticTrace(options, out).ok());
  std::ifstream in(out + ".truth.json");
  std::stringstream text;
  text << in.rdbuf();
  run.truth = text.str();
  auto trace = ImportKinetoFile(out);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  DeviceTimelines timelines = BuildDeviceTimelines(*trace);
  AnalysisOptions analysis_options;
  AnalysisInput input{*trace, timelines, analysis_options};
  run.steps = ComputeStepBreakdown(input, run.metrics);
  run.idle = ComputeIdleGaps(input, run.metrics);
  ComputeKernelStats(input, run.metrics);
}

TEST(SynthGroundTruthTest, InputBoundDataLoaderWaitIsRecovered) {
  SynthRun run;
  Synthesize("input-bound", run);
  if (HasFatalFailure()) return;
  double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
  double injected_ms = NsToMs(TruthInt(run.truth, "dataloader_wait_ns_per_step"));
  ASSERT_GT(injected_ms, 0);
  double tolerance = 0.02 * step_ms;
  EXPECT_NEAR(run.metrics.ValueOr("step.time_ms", -1), step_ms, tolerance);
  EXPECT_NEAR(run.metrics.ValueOr("step.dataloader_ms", -1), injected_ms, tolerance);
  EXPECT_NEAR(run.metrics.ValueOr("idle.input_wait_ms_per_step", -1), injected_ms, tolerance);
  EXPECT_GT(run.metrics.ValueOr("idle.input_wait_share_pct", -1), 80);
}

TEST(SynthGroundTruthTest, SyncHeavyDrainIsRecovered) {
  SynthRun run;
  Synthesize("sync-heavy", run);
  if (HasFatalFailure()) return;
  double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
  double injected_ms = NsToMs(TruthInt(run.truth, "gpu_idle_after_mid_step_syncs_ns_per_step"));
  ASSERT_GT(injected_ms, 0);
  EXPECT_NEAR(run.metrics.ValueOr("idle.sync_drain_ms_per_step", -1), injected_ms, 0.02 * step_ms);
  double drain = run.metrics.ValueOr("idle.sync_drain_ms", -1);
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    auto cause = static_cast<IdleCause>(c);
    if (cause == IdleCause::kSyncDrain) continue;
    EXPECT_GT(drain, run.metrics.ValueOr(fmt::format("idle.{}_ms", IdleCauseName(cause)), -1))
        << IdleCauseName(cause);
  }
}

// Eager fp32 RMSNorm: the elementwise, normalization and reduction classes (softmax is a
// reduction there) take the kernel time the generator spent in those kernels.
TEST(SynthGroundTruthTest, MemoryBoundElementwiseKernelShareIsRecovered) {
  SynthRun run;
  Synthesize("memory-bound-elementwise", run);
  if (HasFatalFailure()) return;
  const double kernel_ns = static_cast<double>(TruthInt(run.truth, "kernel_ns_per_step"));
  ASSERT_GT(kernel_ns, 0);
  const double expected =
      100.0 *
      static_cast<double>(TruthInt(run.truth, "memory_bound_kernel_ns_per_step") +
                          TruthInt(run.truth, "softmax_kernel_ns_per_step")) /
      kernel_ns;
  EXPECT_GT(expected, 40);
  double got = 0;
  for (const char* c : {"elementwise", "normalization", "reduction"}) {
    got += run.metrics.ValueOr(fmt::format("kernels.class.{}_pct", c), 0);
  }
  EXPECT_NEAR(got, expected, 0.5);
}

// The healthy scenario has no injected stall: none of these causes takes a large share.
TEST(SynthGroundTruthTest, HealthyHasNoLargeStall) {
  SynthRun run;
  Synthesize("healthy", run);
  if (HasFatalFailure()) return;
  EXPECT_LT(run.metrics.ValueOr("idle.input_wait_pct", -1), 2);
  EXPECT_LT(run.metrics.ValueOr("idle.sync_drain_pct", -1), 5);
  EXPECT_LT(run.metrics.ValueOr("step.dataloader_pct", -1), 2);
}

// The whole analysis (warm-up and step extents as the pipeline runs them) of a scenario.
struct FullRun {
  std::string truth;
  std::unique_ptr<Trace> trace;
  TraceAnalysis analysis;
  double Metric(const std::string& id) const { return analysis.metrics.ValueOr(id, -1); }
};

void AnalyzeScenario(const std::string& scenario, int steps, FullRun& run,
                     std::vector<std::string> params = {}) {
  std::string tag = std::to_string(steps);
  for (const std::string& p : params) tag += "_" + p;
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("gpuwhy_full_" + scenario + "_" + tag + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string out = (dir / "trace.json").string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = steps;
  options.params = std::move(params);
  ASSERT_TRUE(WriteSyntheticTrace(options, out).ok());
  std::ifstream in(out + ".truth.json");
  std::stringstream text;
  text << in.rdbuf();
  run.truth = text.str();
  auto trace = ImportKinetoFile(out);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  run.trace = std::make_unique<Trace>(std::move(*trace));
  run.analysis = AnalyzeTrace(*run.trace);
}

bool HasNote(const StepExtents& e, const std::string& text) {
  for (const std::string& n : e.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

// Warm-up that fills most of the capture (context creation, allocations, module load,
// autotuning, cuBLAS set-up, DataLoader workers starting): the first step is left out, the
// per-step numbers are the steady state's (within 2% of its step), and the one-off causes are
// found with their injected sizes.
TEST(SynthGroundTruthTest, WarmupIsLeftOutAndTheSteadyStateIsRecovered) {
  FullRun run;
  AnalyzeScenario("warmup-input-bound", 12, run);
  if (HasFatalFailure()) return;
  const StepExtents& e = run.analysis.steps.extents;
  EXPECT_TRUE(e.steady_state);
  ASSERT_EQ(e.warmup.size(), 1u);
  EXPECT_EQ(e.warmup.front(), 1);
  EXPECT_EQ(static_cast<int64_t>(e.steps.size()), TruthInt(run.truth, "steady_state_steps"));
  double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
  double tolerance = 0.02 * step_ms;
  EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, tolerance);
  double wait_ms = NsToMs(TruthInt(run.truth, "dataloader_wait_ns_per_step"));
  EXPECT_NEAR(run.Metric("step.dataloader_ms"), wait_ms, tolerance);
  EXPECT_NEAR(run.Metric("idle.input_wait_ms_per_step"), wait_ms, tolerance);
  // The capture's share before the first steady step, within 1 point.
  double truth_share = 100.0 * static_cast<double>(TruthInt(run.truth, "warmup_ns")) /
                       static_cast<double>(TruthInt(run.truth, "capture_ns"));
  EXPECT_GT(truth_share, 50);
  EXPECT_NEAR(run.Metric("warmup.share_pct"), truth_share, 1.0);
  EXPECT_GE(run.Metric("warmup.context_setup_ms"), NsToMs(TruthInt(run.truth, "context_setup_ns")));
  EXPECT_NEAR(run.Metric("warmup.module_load_ms"), NsToMs(TruthInt(run.truth, "module_load_ns")),
              0.1);
  EXPECT_NEAR(run.Metric("warmup.dataloader_start_ms"),
              NsToMs(TruthInt(run.truth, "first_dataloader_ns")), 0.1);
  // The cuBLAS cudaFree under the first aten::addmm and the autotuned first convolution.
  EXPECT_GE(run.Metric("warmup.first_call_ms"), NsToMs(TruthInt(run.truth, "cublas_init_ns")));
  bool conv_first_call = false;
  for (const OneOffEvent& ev : run.analysis.warmup.events) {
    conv_first_call = conv_first_call ||
                      (ev.cause == WarmupCause::kFirstCall && ev.name == "aten::cudnn_convolution");
  }
  EXPECT_TRUE(conv_first_call);
}

// A warm-up short against the capture: still left out, and its share is under half.
TEST(SynthGroundTruthTest, BriefWarmupIsLeftOutButDoesNotDominate) {
  FullRun run;
  AnalyzeScenario("warmup-launch-bound", 12, run);
  if (HasFatalFailure()) return;
  const StepExtents& e = run.analysis.steps.extents;
  EXPECT_EQ(e.warmup.size(), 1u);
  double truth_share = 100.0 * static_cast<double>(TruthInt(run.truth, "warmup_ns")) /
                       static_cast<double>(TruthInt(run.truth, "capture_ns"));
  EXPECT_LT(truth_share, 50);
  EXPECT_NEAR(run.Metric("warmup.share_pct"), truth_share, 1.0);
  double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
  EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, 0.02 * step_ms);
  // All steady idle is launch gaps between the tiny kernels; the 30 ms module load is not in it.
  double idle_ms = NsToMs(TruthInt(run.truth, "gpu_idle_ns_per_step"));
  EXPECT_NEAR(run.Metric("idle.launch_bound_ms_per_step"), idle_ms, 0.10 * idle_ms);
}

// The last ProfilerStep runs 120 ms on into the profiler's flush: it is left out (and the
// notes say why), so no step statistic sees the tail (the steps' own 10 ms DataLoader wait is
// the per-step idle), unless it is the only step.
TEST(SynthGroundTruthTest, LastStepFlushIsLeftOutUnlessItIsTheOnlyStep) {
  FullRun run;
  AnalyzeScenario("last-step-flush", 12, run);
  if (HasFatalFailure()) return;
  const StepExtents& e = run.analysis.steps.extents;
  ASSERT_EQ(e.excluded.size(), 1u);
  EXPECT_EQ(e.excluded.front(), 12);
  EXPECT_TRUE(HasNote(e, "profiler's own stop and flush"));
  EXPECT_GT(NsToMs(e.last_step_flush_ns), 0.9 * NsToMs(TruthInt(run.truth, "last_step_flush_ns")));
  bool reported = false;  // the report's data-quality section says so
  for (const DataQualityIssue& issue : run.analysis.data_quality.issues) {
    reported = reported || (issue.id == "last_step_flush" &&
                            issue.message.find("ProfilerStep#12") != std::string::npos);
  }
  EXPECT_TRUE(reported);
  double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
  EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, 0.02 * step_ms);
  EXPECT_LT(run.Metric("step.time_max_ms"), NsToMs(TruthInt(run.truth, "last_step_ns")) / 2);
  double wait_ms = NsToMs(TruthInt(run.truth, "dataloader_wait_ns_per_step"));
  EXPECT_NEAR(run.Metric("idle.input_wait_ms_per_step"), wait_ms, 0.02 * step_ms);
  EXPECT_LT(run.Metric("idle.step_boundary_pct") + run.Metric("idle.unknown_pct"), 2);

  FullRun one;
  AnalyzeScenario("last-step-flush", 1, one);
  if (HasFatalFailure()) return;
  EXPECT_EQ(one.analysis.steps.extents.steps.size(), 1u);
  EXPECT_TRUE(one.analysis.steps.extents.excluded.empty());
}

// A multiprocessing DataLoader's __next__ waiting on its workers, in the 2.x and the 1.13
// span form: the step breakdown and the idle attribution both give the injected wait.
TEST(SynthGroundTruthTest, MultiprocessingDataLoaderWaitIsRecoveredInBothForms) {
  for (const char* scenario : {"dataloader-workers", "dataloader-workers-v113"}) {
    SCOPED_TRACE(scenario);
    FullRun run;
    AnalyzeScenario(scenario, 12, run);
    if (HasFatalFailure()) return;
    double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
    double wait_ms = NsToMs(TruthInt(run.truth, "dataloader_wait_ns_per_step"));
    double tolerance = 0.02 * step_ms;
    EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, tolerance);
    EXPECT_NEAR(run.Metric("step.dataloader_ms"), wait_ms, tolerance);
    EXPECT_NEAR(run.Metric("idle.input_wait_ms_per_step"), wait_ms, tolerance);
    EXPECT_NEAR(run.Metric("step.dataloader_pct"), run.Metric("idle.input_wait_pct"), 2.0);
  }
}

// .item() drains the queue, then the host preprocesses on the CPU: the sync's share is the
// short drain, the preprocessing is host_busy (within 2% of the step) named by its ops.
TEST(SynthGroundTruthTest, HostPreprocessingAfterASyncIsHostNotDrain) {
  FullRun run;
  AnalyzeScenario("host-preprocess-after-sync", 12, run);
  if (HasFatalFailure()) return;
  double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
  double preprocess_ms = NsToMs(TruthInt(run.truth, "host_preprocess_ns_per_step"));
  EXPECT_NEAR(run.Metric("idle.host_busy_ms_per_step"), preprocess_ms, 0.02 * step_ms);
  EXPECT_LT(run.Metric("idle.sync_drain_ms_per_step"), 0.05 * preprocess_ms);
  const std::vector<HostNameTime>& top = run.analysis.idle_gaps.host_busy_top;
  ASSERT_GE(top.size(), 3u);
  EXPECT_EQ(top[0].name, "PIL/Image.py(2205): resize");
  std::string first_op;
  for (const HostNameTime& h : top) {
    if (first_op.empty() && h.name.rfind("aten::", 0) == 0) first_op = h.name;
  }
  EXPECT_EQ(first_op, "aten::upsample_bilinear2d");
}

size_t CountEvents(const WarmupResult& w, WarmupCause cause) {
  size_t n = 0;
  for (const OneOffEvent& e : w.events) n += e.cause == cause ? 1 : 0;
  return n;
}

// A TorchScript compile inside its scripted op, in the first forward or a middle ProfilerStep:
// one compile event per fusion group, named by the kernel compiled, at the injected size; the
// GPU idle it causes is one_off; a middle step it fills is left out, so the step time is the
// steady one (within 2%).
TEST(SynthGroundTruthTest, CompileInsideAnOpIsOneOffWhereverItSits) {
  for (std::vector<std::string> params :
       {std::vector<std::string>{},
        {"profiler_steps=1", "compile_step=6", "compile_ms=40"},
        {"profiler_steps=1", "compile_step=6", "fusion_groups=3"}}) {
    std::string what;
    for (const std::string& p : params) what += p + " ";
    SCOPED_TRACE(what);
    FullRun run;
    AnalyzeScenario("compile-in-op", 12, run, params);
    if (HasFatalFailure()) return;
    const double compile_ms = NsToMs(TruthInt(run.truth, "compile_ns"));
    EXPECT_NEAR(run.Metric("warmup.compile_ms"), compile_ms, 0.02 * compile_ms);
    EXPECT_EQ(static_cast<int64_t>(CountEvents(run.analysis.warmup, WarmupCause::kCompile)),
              TruthInt(run.truth, "fusion_groups"));
    for (const OneOffEvent& e : run.analysis.warmup.events) {
      if (e.cause == WarmupCause::kCompile) {
        EXPECT_EQ(e.name.rfind("fused__", 0), 0u) << e.name;
      }
    }
    // The GPU idles through the compile: all of it is one-off idle, none a steady cause.
    EXPECT_NEAR(run.Metric("idle.one_off_ms"), compile_ms, 0.02 * compile_ms);
    if (params.empty()) continue;
    const StepExtents& e = run.analysis.steps.extents;
    EXPECT_NE(std::find(e.excluded.begin(), e.excluded.end(), 6), e.excluded.end());
    double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
    EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, 0.02 * step_ms);
  }
}

// One capture or eight: each torch.cuda.graph() (its synchronize, capture and instantiation)
// is graph_capture at the injected size, and the recorded-not-run launches add no GPU op.
TEST(SynthGroundTruthTest, GraphCapturesAreOneOffAtTheirSize) {
  for (int captures : {1, 8}) {
    SCOPED_TRACE(captures);
    FullRun run;
    AnalyzeScenario("graph-capture", captures, run);
    if (HasFatalFailure()) return;
    const double capture_ms = NsToMs(TruthInt(run.truth, "graph_capture_ns"));
    EXPECT_NEAR(run.Metric("warmup.graph_capture_ms"), capture_ms, 0.02 * capture_ms);
    EXPECT_GE(CountEvents(run.analysis.warmup, WarmupCause::kGraphCapture),
              static_cast<size_t>(2 * captures));  // capture + instantiation, each
    EXPECT_GT(run.Metric("warmup.share_pct"), 50);
  }
}

// A teardown tail after or inside the last ProfilerStep: found at its size; inside the last
// step it fills that step, which is left out, so the per-step numbers are the steady ones.
TEST(SynthGroundTruthTest, TeardownTailIsOneOffAndLeftOutOfTheSteps) {
  for (std::vector<std::string> params :
       {std::vector<std::string>{}, {"teardown_in_last_step=1"}, {"teardown_calls=800"}}) {
    std::string what;
    for (const std::string& p : params) what += p + " ";
    SCOPED_TRACE(what);
    FullRun run;
    AnalyzeScenario("teardown-tail", 12, run, params);
    if (HasFatalFailure()) return;
    const double tail_ms = NsToMs(TruthInt(run.truth, "teardown_ns"));
    EXPECT_NEAR(run.Metric("warmup.teardown_ms"), tail_ms, 0.02 * tail_ms);
    double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
    EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, 0.02 * step_ms);
    double wait_ms = NsToMs(TruthInt(run.truth, "dataloader_wait_ns_per_step"));
    EXPECT_NEAR(run.Metric("idle.input_wait_ms_per_step"), wait_ms, 0.02 * step_ms);
    const std::vector<int64_t>& excluded = run.analysis.steps.extents.excluded;
    const bool in_last_step = !params.empty() && params.front() == "teardown_in_last_step=1";
    EXPECT_EQ(std::find(excluded.begin(), excluded.end(), 12) != excluded.end(), in_last_step);
  }
}

// A decode loop of graph replays: the step's GPU busy time is the truth's (within 1% of the
// step), every replay's kernels are correlated to its one cudaGraphLaunch, and a first replay's
// upload is one-off idle at its size.
TEST(SynthGroundTruthTest, DecodeGraphReplaysAreRecovered) {
  for (std::vector<std::string> params :
       {std::vector<std::string>{}, {"upload_ms=8", "profiler_steps=0"}}) {
    std::string what;
    for (const std::string& p : params) what += p + " ";
    SCOPED_TRACE(what);
    FullRun run;
    AnalyzeScenario("decode-graph-replay", 12, run, params);
    if (HasFatalFailure()) return;
    const double upload_ms = NsToMs(TruthInt(run.truth, "graph_upload_ns"));
    if (params.empty()) {
      double step_ms = NsToMs(TruthInt(run.truth, "step_time_ns"));
      EXPECT_NEAR(run.Metric("step.time_ms"), step_ms, 0.01 * step_ms);
      double idle_ms = NsToMs(TruthInt(run.truth, "gpu_idle_ns_per_step"));
      EXPECT_NEAR(run.Metric("idle.total_ms_per_step"), idle_ms, 0.01 * step_ms);
    } else {
      EXPECT_NEAR(run.Metric("warmup.graph_capture_ms"), upload_ms, 0.02 * upload_ms);
      EXPECT_NEAR(run.Metric("idle.one_off_ms"), upload_ms, 0.02 * upload_ms);
    }
  }
}

}  // namespace synth_ground_truth_test
}  // namespace gpuwhy
