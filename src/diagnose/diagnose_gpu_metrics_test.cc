// compute.busy_not_efficient on synthetic Nsight Systems exports with GPU_METRICS: the
// small-grids scenario's under-filled GEMMs show as low sampled SM activity while the GPU is
// busy; the healthy scenario's full grids do not; without GPU_METRICS the rule says what to
// capture.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "diagnose/diagnose_test_util.h"
#include "ingest/nsys/nsys_importer.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace diagnose_gpu_metrics_test {

namespace fs = std::filesystem;
constexpr const char* kRule = "compute.busy_not_efficient";

std::unique_ptr<Diagnosed> DiagnoseNsysScenario(const std::string& scenario, bool gpu_metrics) {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("gpuwhy_gpu_metrics_" + scenario + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "report.sqlite").string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = 12;
  options.format = SynthFormat::kNsysSqlite;
  options.gpu_metrics = gpu_metrics;
  if (Status s = WriteSyntheticTrace(options, path); !s.ok()) {
    ADD_FAILURE() << s.message();
    return nullptr;
  }
  auto traces = ImportNsysSqlite(path);
  if (!traces.ok() || traces->size() != 1) {
    ADD_FAILURE() << path << ": " << (traces.ok() ? "not one trace" : traces.status().message());
    return nullptr;
  }
  auto out = std::make_unique<Diagnosed>();
  out->trace = std::move(traces->front());
  out->analysis = AnalyzeTrace(out->trace);
  out->diagnosis = Diagnose(out->trace, out->analysis);
  return out;
}

const Finding* FindingOf(const Diagnosis& d, std::string_view id) {
  for (const Finding& f : d.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const RuleOutcome* OutcomeOf(const Diagnosis& d, std::string_view id) {
  for (const RuleOutcome& o : d.outcomes) {
    if (o.rule_id == id) return &o;
  }
  return nullptr;
}

// |f| holds |id| as evidence, compared with |threshold|, at |value|.
void ExpectEvidence(const Finding& f, std::string_view id, std::string_view comparison,
                    double threshold, double value) {
  for (const FindingEvidence& e : f.evidence) {
    if (e.metric.id != id) continue;
    EXPECT_EQ(e.comparison, comparison) << id;
    EXPECT_EQ(e.threshold, threshold) << id;
    EXPECT_NEAR(e.metric.value, value, 1e-9) << id;
    return;
  }
  ADD_FAILURE() << f.id << " has no evidence " << id;
}

const ChecklistItem* EfficiencyItem(const Diagnosis& d) {
  for (const ChecklistItem& item : d.checklist) {
    if (item.title == "kernel efficiency") return &item;
  }
  return nullptr;
}

TEST(DiagnoseGpuMetricsTest, SmallGridsAreBusyButNotEfficient) {
  auto run = DiagnoseNsysScenario("small-grids", true);
  ASSERT_NE(run, nullptr);
  const GpuMetricsResult& gm = run->analysis.gpu_metrics;
  ASSERT_TRUE(gm.valid);
  ASSERT_TRUE(gm.rank.sm_active_pct.has_value());
  EXPECT_LT(*gm.rank.sm_active_pct, 50);
  EXPECT_GT(gm.rank.coverage_pct, 99);
  EXPECT_EQ(gm.per_step.size(), run->analysis.utilization.per_step.size());
  const Finding* f = FindingOf(run->diagnosis, kRule);
  ASSERT_NE(f, nullptr) << "SM active " << *gm.rank.sm_active_pct;
  ExpectEvidence(*f, "gpu_metrics.sm_active_pct", "<", 50, *gm.rank.sm_active_pct);
  EXPECT_NE(f->title.find("nsys GPU_METRICS"), std::string::npos) << f->title;
  // The same kernels' grids feed memory.small_batch_gemms: the two estimates do not add up
  // to more than the gross GPU_METRICS estimate.
  EXPECT_NE(FindingOf(run->diagnosis, "memory.small_batch_gemms"), nullptr);
  const ChecklistItem* item = EfficiencyItem(run->diagnosis);
  ASSERT_NE(item, nullptr);
  EXPECT_NE(item->detail.find("SM active"), std::string::npos) << item->detail;
}

// Eager fp32 RMSNorm: the SMs stay active (warps resident, stalled on loads) while DRAM
// bandwidth is high and the tensor pipes idle. compute.memory_bound_elementwise fires with the
// sampled DRAM bandwidth as evidence; compute.busy_not_efficient (low SM active) does not, so the
// same time is not claimed twice.
TEST(DiagnoseGpuMetricsTest, MemoryBoundElementwiseShowsHighDramLowTensor) {
  auto run = DiagnoseNsysScenario("memory-bound-elementwise", true);
  ASSERT_NE(run, nullptr);
  const GpuMetricsResult& gm = run->analysis.gpu_metrics;
  ASSERT_TRUE(gm.valid);
  ASSERT_TRUE(gm.rank.dram_bw_pct && gm.rank.tensor_active_pct && gm.rank.sm_issue_pct);
  EXPECT_GE(*gm.rank.dram_bw_pct, 50);
  EXPECT_LT(*gm.rank.tensor_active_pct, 50);
  EXPECT_LT(*gm.rank.sm_issue_pct, 40);
  EXPECT_GE(*gm.rank.sm_active_pct, 50);
  const Finding* f = FindingOf(run->diagnosis, "compute.memory_bound_elementwise");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->confidence, Confidence::kMedium);
  EXPECT_NE(f->title.find("nsys GPU_METRICS"), std::string::npos) << f->title;
  ExpectEvidence(*f, "gpu_metrics.dram_bw_pct", ">=", 50, *gm.rank.dram_bw_pct);
  const RuleOutcome* o = OutcomeOf(run->diagnosis, kRule);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->status, AssessStatus::kAssessed);
  EXPECT_FALSE(o->fired);
}

// The healthy scenario's DRAM bandwidth stays under the memory-bound threshold.
TEST(DiagnoseGpuMetricsTest, HealthyIsNotMeasuredMemoryBound) {
  auto run = DiagnoseNsysScenario("healthy", true);
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(run->analysis.gpu_metrics.rank.dram_bw_pct.has_value());
  EXPECT_LT(*run->analysis.gpu_metrics.rank.dram_bw_pct, 50);
  EXPECT_EQ(FindingOf(run->diagnosis, "compute.memory_bound_elementwise"), nullptr);
}

TEST(DiagnoseGpuMetricsTest, HealthyGetsNoEfficiencyFinding) {
  auto run = DiagnoseNsysScenario("healthy", true);
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(run->analysis.gpu_metrics.valid);
  EXPECT_GE(*run->analysis.gpu_metrics.rank.sm_active_pct, 50);
  const RuleOutcome* o = OutcomeOf(run->diagnosis, kRule);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->status, AssessStatus::kAssessed);
  EXPECT_FALSE(o->fired);
  for (const Finding& f : run->diagnosis.findings) {
    if (f.id == "compute.gpu_bound") continue;  // GPU-bound: the kernels are the step
    EXPECT_TRUE(f.bottleneck_class != BottleneckClass::kCompute || f.severity <= Severity::kInfo)
        << f.id;
  }
}

TEST(DiagnoseGpuMetricsTest, WithoutGpuMetricsTheChecklistSaysHowToCaptureThem) {
  auto run = DiagnoseNsysScenario("small-grids", false);
  ASSERT_NE(run, nullptr);
  const RuleOutcome* o = OutcomeOf(run->diagnosis, kRule);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->status, AssessStatus::kNotAssessed);
  EXPECT_NE(o->note.find("--gpu-metrics-devices=all"), std::string::npos) << o->note;
  const ChecklistItem* item = EfficiencyItem(run->diagnosis);
  ASSERT_NE(item, nullptr);
  EXPECT_NE(item->missing.find("GPU_METRICS"), std::string::npos) << item->missing;
  EXPECT_NE(item->command.find("--gpu-metrics-devices=all"), std::string::npos) << item->command;
}

}  // namespace diagnose_gpu_metrics_test
}  // namespace gpuwhy
