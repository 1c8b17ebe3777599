// Ground truth from the scenario generator: the step breakdown and the idle-gap attribution
// recover each injected stall within 2% of step time.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace synth_ground_truth_test
}  // namespace gpuwhy
