// Step breakdown and idle-gap attribution on real traces from ../shared/data/kineto.
// Skipped when the data is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "analyze/idle_gaps.h"
#include "analyze/step_breakdown.h"
#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {
namespace step_idle_real_test {

namespace fs = std::filesystem;

const fs::path kKineto = fs::path(GPUWHY_SHARED_DATA) / "kineto";
const fs::path kResnetWorkers0 =
    kKineto / "kineto_tb_plugin" / "2d19c63_resnet50_num_workers_0__worker0.pt.trace.json.gz";
const fs::path kResnetWorkers4 =
    kKineto / "kineto_tb_plugin" / "7bd25bd_resnet50_num_workers_4__worker0.pt.trace.json.gz";

struct Analysed {
  StepBreakdownResult steps;
  IdleGapsResult idle;
  MetricSet metrics;
};

Analysed AnalyseFile(const fs::path& path) {
  auto trace = ImportKinetoFile(path.string());
  EXPECT_TRUE(trace.ok()) << path << ": " << trace.status().message();
  Analysed a;
  if (!trace.ok()) return a;
  DeviceTimelines timelines = BuildDeviceTimelines(*trace);
  AnalysisOptions options;
  AnalysisInput input{*trace, timelines, options};
  a.steps = ComputeStepBreakdown(input, a.metrics);
  a.idle = ComputeIdleGaps(input, a.metrics);
  return a;
}

void ExpectInvariants(const Analysed& a, const std::string& what) {
  for (const StepCosts& s : a.steps.steps) {
    EXPECT_EQ(std::accumulate(s.ns.begin(), s.ns.end(), DurationNs{0}), s.total_ns) << what;
  }
  EXPECT_EQ(std::accumulate(a.idle.rank.ns.begin(), a.idle.rank.ns.end(), DurationNs{0}),
            a.idle.rank.idle_ns)
      << what;
  EXPECT_LE(a.idle.rank.idle_ns, a.idle.rank.window_ns) << what;
}

TEST(StepIdleRealTest, ResnetWithoutWorkersIsInputBound) {
  if (!fs::exists(kResnetWorkers0))
    GTEST_SKIP() << kResnetWorkers0 << " is absent: real-trace test skipped";
  Analysed a = AnalyseFile(kResnetWorkers0);
  ExpectInvariants(a, "num_workers=0");
  ASSERT_EQ(a.steps.steps.size(), 6u);
  double dataloader_pct = a.metrics.ValueOr("step.dataloader_pct", -1);
  // __next__ takes ~50 ms of each ~212 ms step, all of it with the GPU idle.
  EXPECT_GT(dataloader_pct, 20);
  EXPECT_LT(dataloader_pct, 30);
  // Idle is ~51% of the step: ~44% of it is input wait (the DataLoader time exactly), ~47%
  // is framework dispatch between kernels (V100, 2020 PyTorch with profiler overhead).
  EXPECT_NEAR(a.metrics.ValueOr("idle.input_wait_ms_per_step", -1),
              a.metrics.ValueOr("step.dataloader_ms", -1),
              0.01 * a.metrics.ValueOr("step.time_ms", -1));
  EXPECT_GT(a.metrics.ValueOr("idle.input_wait_share_pct", -1), 40);
  EXPECT_GT(a.metrics.ValueOr("idle.input_wait_pct", -1), 20);
  double covered = a.metrics.ValueOr("idle.input_wait_share_pct", 0) +
                   a.metrics.ValueOr("idle.launch_bound_share_pct", 0) +
                   a.metrics.ValueOr("idle.host_busy_share_pct", 0);
  EXPECT_GT(covered, 95);
  // Every long gap is a DataLoader wait: the six longest, one per step, over 20 ms each (the first
  // step starts late).
  ASSERT_GE(a.idle.top_gaps.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.idle.top_gaps[i].dominant, IdleCause::kInputWait);
    EXPECT_GT(a.idle.top_gaps[i].range.length(), 20 * kNsPerMs);
  }
  EXPECT_LT(a.idle.top_gaps[6].range.length(), 10 * kNsPerMs);
}

TEST(StepIdleRealTest, ResnetWithWorkersWaitsFarLessForInput) {
  if (!fs::exists(kResnetWorkers0) || !fs::exists(kResnetWorkers4)) {
    GTEST_SKIP() << "ResNet-50 tb_plugin traces are absent: real-trace test skipped";
  }
  Analysed w0 = AnalyseFile(kResnetWorkers0);
  Analysed w4 = AnalyseFile(kResnetWorkers4);
  ExpectInvariants(w4, "num_workers=4");
  double pct0 = w0.metrics.ValueOr("step.dataloader_pct", -1);
  double pct4 = w4.metrics.ValueOr("step.dataloader_pct", -1);
  EXPECT_GE(pct4, 0);
  EXPECT_LT(pct4, 5) << "below the plugin's 5% DataLoader threshold";
  EXPECT_GT(pct0, 5 * pct4) << "workers cut DataLoader time several-fold";
  EXPECT_GT(w0.metrics.ValueOr("idle.input_wait_ms_per_step", -1),
            5 * w4.metrics.ValueOr("idle.input_wait_ms_per_step", -1));
}

TEST(StepIdleRealTest, EveryRealTraceAnalyses) {
  if (!fs::exists(kKineto)) GTEST_SKIP() << kKineto << " is absent: real-trace test skipped";
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(kKineto)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& path : files) {
    Analysed a = AnalyseFile(path);
    ExpectInvariants(a, path);
    if (a.steps.steps.empty()) {
      EXPECT_FALSE(a.steps.not_applicable.empty()) << path;
    }
    if (a.idle.devices.empty()) {
      EXPECT_FALSE(a.idle.not_applicable.empty()) << path;
    }
  }
}

}  // namespace step_idle_real_test
}  // namespace gpuwhy
