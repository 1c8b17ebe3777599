// Every `gpuwhy synth` scenario: the injected bottleneck is the top finding, with
// recoverable time within 10% of the injected stall; healthy has nothing above info.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "diagnose/diagnose_test_util.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace diagnose_synth_test {

namespace fs = std::filesystem;

// Reads `"key": <integer>` from the truth JSON (flat keys are unique in it).
int64_t TruthInt(const std::string& truth, const std::string& key) {
  size_t at = truth.find("\"" + key + "\":");
  if (at == std::string::npos) {
    ADD_FAILURE() << "truth has no " << key;
    return 0;
  }
  return std::strtoll(truth.c_str() + at + key.size() + 3, nullptr, 10);
}

// The synth truth names the catalog id; "communication.exposed" predates the catalog.
std::string CatalogId(std::string expected) {
  return expected == "communication.exposed" ? "comm.exposed" : expected;
}

// The truth key holding the injected stall per step, by scenario.
std::string InjectedKey(const std::string& scenario) {
  if (scenario == "input-bound" || scenario == "warmup-input-bound" ||
      scenario == "last-step-flush" || scenario.starts_with("dataloader-workers")) {
    return "dataloader_wait_ns_per_step";
  }
  if (scenario == "warmup-launch-bound") return "gpu_idle_ns_per_step";
  if (scenario == "host-preprocess-after-sync") return "host_preprocess_ns_per_step";
  if (scenario == "teardown-tail") return "dataloader_wait_ns_per_step";
  if (scenario == "launch-bound") return "gpu_idle_ns_per_step";  // all idle is launch gaps
  if (scenario == "sync-heavy") return "gpu_idle_after_mid_step_syncs_ns_per_step";
  if (scenario == "comm-exposed") return "exposed_comm_ns_per_step";
  if (scenario == "pageable-copies") return "pageable_copy_ns_per_step";
  if (scenario == "small-grids") return "underfilled_saving_ns_per_step";
  if (scenario == "memory-bound-elementwise") return "fusion_saving_ns_per_step";
  return "";
}

struct SynthDiagnosis {
  std::string truth;
  std::unique_ptr<Diagnosed> run;
};

// `params` vary the scenario's shape (SynthOptions::params); each shape gets its own file.
SynthDiagnosis RunScenario(const std::string& scenario, std::vector<std::string> params = {},
                           int steps = 12) {
  SynthDiagnosis out;
  std::string tag = std::to_string(steps);
  for (const std::string& p : params) tag += "_" + p;
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("gpuwhy_diagnose_" + scenario + "_" + tag + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "trace.json").string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = steps;
  options.params = std::move(params);
  Status status = WriteSyntheticTrace(options, path);
  if (!status.ok()) {
    ADD_FAILURE() << status.message();
    return out;
  }
  std::ifstream in(path + ".truth.json");
  std::stringstream text;
  text << in.rdbuf();
  out.truth = text.str();
  out.run = DiagnoseFile(path);
  return out;
}

class SynthScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SynthScenarioTest, InjectedBottleneckIsTopWithItsTime) {
  const std::string scenario = GetParam();
  SynthDiagnosis s = RunScenario(scenario);
  ASSERT_NE(s.run, nullptr);
  const Diagnosis& d = s.run->diagnosis;
  ExpectNoIdleDoubleCount(d, scenario);
  std::string expected = CatalogId(ScenarioExpectedFinding(scenario));
  if (expected == "quality.warmup_dominated") {
    // One-off work is most of the capture: that is the verdict, priced as no per-step saving
    // (the per-cause sizes are checked by the one-off tests below).
    ASSERT_FALSE(d.findings.empty()) << scenario;
    EXPECT_EQ(d.findings.front().id, expected)
        << scenario << ": top is " << d.findings.front().title;
    return;
  }
  if (expected == "compute.gpu_bound") {
    ASSERT_FALSE(d.findings.empty()) << scenario;
    EXPECT_EQ(d.findings.front().id, expected)
        << scenario << ": top is " << d.findings.front().title;
  }
  if (expected == "none" || expected == "compute.gpu_bound") {
    // A well-fed GPU is GPU-bound: compute.gpu_bound says the kernels are the step and claims
    // no saving; nothing else rises above info.
    for (const Finding& f : d.findings) {
      if (f.id == "compute.gpu_bound") {
        EXPECT_EQ(f.recoverable_ns_per_step, 0) << scenario;
        continue;
      }
      EXPECT_EQ(f.severity, Severity::kInfo) << f.id << ": " << f.title;
    }
    return;
  }
  ASSERT_FALSE(d.findings.empty()) << scenario;
  const Finding& top = d.findings.front();
  EXPECT_EQ(top.id, expected) << scenario << ": top is " << top.title;
  const Finding* f = d.Find(expected);
  ASSERT_NE(f, nullptr);
  double injected = static_cast<double>(TruthInt(s.truth, InjectedKey(scenario)));
  ASSERT_GT(injected, 0);
  EXPECT_NEAR(static_cast<double>(f->recoverable_ns_per_step), injected, 0.10 * injected)
      << scenario << ": recoverable " << NsToMs(f->recoverable_ns_per_step) << " ms vs injected "
      << injected / 1e6 << " ms";
  EXPECT_GE(f->severity, Severity::kMedium) << scenario;
  EXPECT_FALSE(f->evidence.empty());
  EXPECT_FALSE(f->fixes.empty());
  EXPECT_GT(f->SpeedupUpperBound(), 1.0);
  std::printf("[synth] %-16s top=%-24s recoverable=%.3f ms injected=%.3f ms (%+.1f%%) %s\n",
              scenario.c_str(), top.id.c_str(), NsToMs(f->recoverable_ns_per_step), injected / 1e6,
              100.0 * (f->recoverable_ns_per_step - injected) / injected,
              std::string(SeverityName(f->severity)).c_str());
}

INSTANTIATE_TEST_SUITE_P(AllScenarios, SynthScenarioTest, ::testing::ValuesIn(ScenarioNames()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// A single-process loader keeps the plain "load in workers" fix.
TEST(SynthDiagnosisTest, SingleProcessDataLoaderFixAddsWorkers) {
  SynthDiagnosis s = RunScenario("input-bound");
  ASSERT_NE(s.run, nullptr);
  const Finding* f = s.run->diagnosis.Find("input.dataloader_wait");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->fixes.empty());
  EXPECT_EQ(f->fixes.front().action.find("already has workers"), std::string::npos);
  EXPECT_NE(f->fixes.front().code.find("num_workers=8"), std::string::npos);
}

// Single-rank synthetic traces without collectives never yield a comm.* finding; the
// checklist says communication was not assessed.
TEST(SynthDiagnosisTest, NoCommunicationFindingWithoutCollectives) {
  SynthDiagnosis s = RunScenario("input-bound");
  ASSERT_NE(s.run, nullptr);
  for (const Finding& f : s.run->diagnosis.findings) EXPECT_NE(f.id.rfind("comm.", 0), 0u) << f.id;
  for (const ChecklistItem& item : s.run->diagnosis.checklist) {
    if (item.section != ChecklistSection::kCommunication) continue;
    EXPECT_EQ(item.status, AssessStatus::kNotAssessed);
    EXPECT_FALSE(item.missing.empty());
    EXPECT_FALSE(item.command.empty());
  }
}

TEST(SynthDiagnosisTest, ChecklistFollowsTheFieldOrder) {
  SynthDiagnosis s = RunScenario("healthy");
  ASSERT_NE(s.run, nullptr);
  const std::vector<ChecklistItem>& items = s.run->diagnosis.checklist;
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items.front().section, ChecklistSection::kBaseline);
  EXPECT_EQ(items.back().section, ChecklistSection::kPlatform);
  EXPECT_EQ(items.back().status, AssessStatus::kNotAssessed);
  EXPECT_NE(items.back().command.find("gpuwhy doctor"), std::string::npos);
  for (size_t i = 1; i < items.size(); ++i) EXPECT_LE(items[i - 1].section, items[i].section);
  EXPECT_EQ(s.run->diagnosis.outcomes.size(), Catalog::Default().rules().size());
}

// Overrides reach the rules: raising the DataLoader threshold above the injected share
// silences the finding.
TEST(SynthDiagnosisTest, OverrideSilencesARule) {
  DiagnoseOptions options;
  ASSERT_TRUE(options.catalog.ApplyOverride("input.dataloader_wait.min_step_pct=90").ok());
  SynthDiagnosis s = RunScenario("input-bound");
  ASSERT_NE(s.run, nullptr);
  Diagnosis d = Diagnose(s.run->trace, s.run->analysis, options);
  EXPECT_EQ(d.Find("input.dataloader_wait"), nullptr);
  ExpectNoIdleDoubleCount(d, "input-bound with override");
}

bool Mentions(const Finding& f, std::string_view text) {
  for (const Fix& fix : f.fixes) {
    if (fix.action.find(text) != std::string::npos || fix.code.find(text) != std::string::npos)
      return true;
  }
  return false;
}

// Warm-up fills most of the capture: the verdict is the steady state's (the DataLoader),
// quality.warmup_dominated says so at low severity, and no rule prices a one-off event as a
// per-step cost (no launch finding from the module load, no sync finding from autotuning).
TEST(SynthDiagnosisTest, DominatingWarmupIsAQualityFindingBesideTheSteadyVerdict) {
  SynthDiagnosis s = RunScenario("warmup-input-bound");
  ASSERT_NE(s.run, nullptr);
  const Diagnosis& d = s.run->diagnosis;
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().id, "input.dataloader_wait");
  const Finding* q = d.Find("quality.warmup_dominated");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->bottleneck_class, BottleneckClass::kQuality);
  EXPECT_EQ(q->severity, Severity::kLow);
  for (const Finding& f : d.findings) {
    EXPECT_NE(f.id.rfind("launch.", 0), 0u) << f.id << ": " << f.title;
    EXPECT_NE(f.id, "host.periodic_stall") << f.title;
  }
}

// A brief warm-up is left out without a finding about it.
TEST(SynthDiagnosisTest, BriefWarmupGetsNoQualityFinding) {
  SynthDiagnosis s = RunScenario("warmup-launch-bound");
  ASSERT_NE(s.run, nullptr);
  EXPECT_EQ(s.run->diagnosis.Find("quality.warmup_dominated"), nullptr);
  EXPECT_EQ(s.run->analysis.steps.extents.warmup.size(), 1u);
}

// Workers that cannot keep up: the input finding, with the loader fixes an expert gives.
TEST(SynthDiagnosisTest, MultiprocessingDataLoaderFixNamesWorkersPinningAndPrefetch) {
  for (const char* scenario : {"dataloader-workers", "dataloader-workers-v113"}) {
    SynthDiagnosis s = RunScenario(scenario);
    ASSERT_NE(s.run, nullptr);
    const Finding* f = s.run->diagnosis.Find("input.dataloader_wait");
    ASSERT_NE(f, nullptr) << scenario;
    for (const char* text : {"num_workers", "pin_memory", "prefetch_factor"})
      EXPECT_TRUE(Mentions(*f, text)) << scenario << ": " << text;
    // Not "add workers (never 0)": the loader has them and they are too slow.
    ASSERT_FALSE(f->fixes.empty());
    EXPECT_NE(f->fixes.front().action.find("already has workers"), std::string::npos);
  }
}

// A short drain after .item(), then CPU preprocessing: a host verdict naming the work, and no
// sync finding (the sync waited only while the queue emptied).
TEST(SynthDiagnosisTest, PreprocessingAfterASyncIsHostNotSync) {
  SynthDiagnosis s = RunScenario("host-preprocess-after-sync");
  ASSERT_NE(s.run, nullptr);
  const Diagnosis& d = s.run->diagnosis;
  ASSERT_FALSE(d.findings.empty());
  const Finding& top = d.findings.front();
  EXPECT_EQ(top.id, "host.cpu_bound_gaps");
  EXPECT_EQ(top.bottleneck_class, BottleneckClass::kHost);
  ASSERT_FALSE(top.top_events.empty());
  EXPECT_EQ(top.top_events.front(), "PIL/Image.py(2205): resize");
  EXPECT_EQ(d.Find("launch.sync_points"), nullptr);
  EXPECT_EQ(d.Find("launch.launch_bound"), nullptr);
}

// ---- One-off work by what it is (issue 35): compile, graph capture, teardown, graph replay.

double TruthMs(const std::string& truth, const std::string& key) {
  return NsToMs(TruthInt(truth, key));
}
bool TruthTrue(const std::string& truth, const std::string& key) {
  return truth.find("\"" + key + "\": true") != std::string::npos;
}
double MetricMs(const SynthDiagnosis& s, const std::string& id) {
  return s.run->analysis.metrics.ValueOr(id, -1);
}
std::string Shape(const std::string& scenario, const std::vector<std::string>& params) {
  std::string out = scenario;
  for (const std::string& p : params) out += " " + p;
  return out;
}

// A one-off capture must not be read as a host-, launch- or input-bound steady state, and no
// finding prices the one-off time (`one_off_ns` over the capture) as a per-step saving.
void ExpectNoPerStepClaimOnOneOffs(const Diagnosis& d, double one_off_ns, const std::string& what) {
  for (const Finding& f : d.findings) {
    EXPECT_NE(f.id.rfind("launch.", 0), 0u) << what << ": " << f.title;
    EXPECT_NE(f.id.rfind("host.", 0), 0u) << what << ": " << f.title;
    EXPECT_NE(f.id, "input.dataloader_wait") << what << ": " << f.title;
    EXPECT_LT(static_cast<double>(f.recoverable_ns_per_step), 0.10 * one_off_ns)
        << what << ": " << f.title;
  }
}

// The findings of a shape against its twin without the one-off work: the same ids in the same
// order, and no recoverable time grown by the one-off (1 ms of slack per step, 10% relative).
// quality.warmup_dominated is left aside: whether the one-off dominates is the capture's shape.
void ExpectSameVerdict(const Diagnosis& with, const Diagnosis& without, const std::string& what) {
  auto steady = [](const Diagnosis& d) {
    std::vector<const Finding*> out;
    for (const Finding& f : d.findings) {
      if (f.id != "quality.warmup_dominated") out.push_back(&f);
    }
    return out;
  };
  std::vector<const Finding*> a_list = steady(with), b_list = steady(without);
  auto ids = [](const std::vector<const Finding*>& list) {
    std::string out;
    for (const Finding* f : list) out += " " + f->id + " (" + f->title + ")";
    return out;
  };
  ASSERT_EQ(a_list.size(), b_list.size())
      << what << "\n with:" << ids(a_list) << "\n without:" << ids(b_list);
  for (size_t i = 0; i < a_list.size(); ++i) {
    const Finding& a = *a_list[i];
    const Finding& b = *b_list[i];
    EXPECT_EQ(a.id, b.id) << what << " #" << i << ": " << a.title << " | " << b.title;
    EXPECT_EQ(a.severity, b.severity) << what << " " << a.id;
    double base = static_cast<double>(b.recoverable_ns_per_step);
    EXPECT_NEAR(static_cast<double>(a.recoverable_ns_per_step), base, 0.10 * base + 1e6)
        << what << " " << a.id;
  }
}

// A TorchScript fusion group compiled inside its scripted op: without ProfilerStep the compile
// is the capture's verdict at its injected size (150 ms dominates a 12-forward capture, 40 ms
// does not); with ProfilerSteps, in the first step or a middle one, the steady verdict is the
// one the same run gives with no compile, and no finding prices the compile.
TEST(SynthOneOffTest, CompileInsideAScriptedOpIsFoundAtItsSize) {
  for (std::vector<std::string> params :
       {std::vector<std::string>{}, {"compile_ms=40"}, {"compile_ms=300", "fusion_groups=3"}}) {
    const std::string what = Shape("compile-in-op", params);
    SynthDiagnosis s = RunScenario("compile-in-op", params);
    ASSERT_NE(s.run, nullptr);
    const Diagnosis& d = s.run->diagnosis;
    const double injected = TruthMs(s.truth, "compile_ns");
    EXPECT_NEAR(MetricMs(s, "warmup.compile_ms"), injected, 0.10 * injected) << what;
    EXPECT_EQ(d.Find("quality.warmup_dominated") != nullptr, TruthTrue(s.truth, "warmup_dominates"))
        << what;
    EXPECT_EQ(JobKindName(d.job.kind), "inference") << what;
    ExpectNoPerStepClaimOnOneOffs(d, injected * 1e6, what);
    ExpectNoIdleDoubleCount(d, what);
  }
  for (const char* step : {"compile_step=1", "compile_step=6"}) {
    for (const char* ms : {"compile_ms=150", "compile_ms=40"}) {
      std::vector<std::string> params = {"profiler_steps=1", step, ms};
      const std::string what = Shape("compile-in-op", params);
      SynthDiagnosis s = RunScenario("compile-in-op", params);
      SynthDiagnosis base = RunScenario("compile-in-op", {"profiler_steps=1", "compile_ms=0"});
      ASSERT_NE(s.run, nullptr);
      ASSERT_NE(base.run, nullptr);
      const double injected = TruthMs(s.truth, "compile_ns");
      EXPECT_NEAR(MetricMs(s, "warmup.compile_ms"), injected, 0.10 * injected) << what;
      EXPECT_LT(MetricMs(base, "warmup.compile_ms"), 0) << "no compile in the twin";
      ExpectSameVerdict(s.run->diagnosis, base.run->diagnosis, what);
      EXPECT_EQ(s.run->diagnosis.Find("quality.warmup_dominated") != nullptr,
                TruthTrue(s.truth, "warmup_dominates"))
          << what;
    }
  }
}

// An engine's start-up: one capture or several, graph capture found at its injected size, the
// capture is the verdict, and nothing reads the recorded-not-run launches or the synchronizes
// as launch, sync or host cost.
TEST(SynthOneOffTest, GraphCaptureIsWarmupNotLaunchOrSync) {
  for (int captures : {1, 8}) {
    const std::string what = "graph-capture x" + std::to_string(captures);
    SynthDiagnosis s = RunScenario("graph-capture", {}, captures);
    ASSERT_NE(s.run, nullptr);
    const Diagnosis& d = s.run->diagnosis;
    EXPECT_EQ(TruthInt(s.truth, "graph_captures"), captures);
    const double injected = TruthMs(s.truth, "graph_capture_ns");
    EXPECT_NEAR(MetricMs(s, "warmup.graph_capture_ms"), injected, 0.10 * injected) << what;
    ASSERT_TRUE(TruthTrue(s.truth, "warmup_dominates")) << what;
    ASSERT_FALSE(d.findings.empty()) << what;
    EXPECT_EQ(d.findings.front().id, "quality.warmup_dominated") << what;
    EXPECT_EQ(JobKindName(d.job.kind), "inference") << what;
    ExpectNoPerStepClaimOnOneOffs(d, injected * 1e6, what);
  }
}

// Thousands of unload/unmap calls after the last launch, after the last ProfilerStep, inside
// it, or in a capture without ProfilerStep: the teardown is found at its injected size, the
// steady verdict is the twin's without the tail, and no host finding is priced from the tail.
TEST(SynthOneOffTest, TeardownTailIsFoundAndLeavesTheSteadyVerdict) {
  for (std::vector<std::string> params : {std::vector<std::string>{},
                                          {"teardown_in_last_step=1"},
                                          {"profiler_steps=0"},
                                          {"profiler_steps=0", "teardown_calls=1000"}}) {
    const std::string what = Shape("teardown-tail", params);
    SynthDiagnosis s = RunScenario("teardown-tail", params);
    std::vector<std::string> twin_params = params;
    twin_params.push_back("teardown_calls=0");
    SynthDiagnosis base = RunScenario("teardown-tail", twin_params);
    ASSERT_NE(s.run, nullptr);
    ASSERT_NE(base.run, nullptr);
    const double injected = TruthMs(s.truth, "teardown_ns");
    EXPECT_NEAR(MetricMs(s, "warmup.teardown_ms"), injected, 0.10 * injected) << what;
    ExpectSameVerdict(s.run->diagnosis, base.run->diagnosis, what);
    const Finding* input = s.run->diagnosis.Find("input.dataloader_wait");
    ASSERT_NE(input, nullptr) << what;
    // Without ProfilerStep the one synthesized step is the whole trace: every step's wait.
    const bool steps = std::find(params.begin(), params.end(), "profiler_steps=0") == params.end();
    const double wait = static_cast<double>(TruthInt(s.truth, "dataloader_wait_ns_per_step")) *
                        (steps ? 1 : TruthInt(s.truth, "steps"));
    EXPECT_NEAR(static_cast<double>(input->recoverable_ns_per_step), wait, 0.10 * wait) << what;
    for (const Finding& f : s.run->diagnosis.findings)
      EXPECT_NE(f.id.rfind("host.", 0), 0u) << what << ": " << f.title;
  }
}

bool PrintsFix(const Diagnosis& d, std::string_view text) {
  for (const Finding& f : d.findings) {
    if (Mentions(f, text)) return true;
  }
  return false;
}

// An inference decode loop of graph replays, with and without the first replay's upload and
// with and without ProfilerStep: inference, GPU-bound first, no launch or sync finding from one
// launch call per step, no training-only fix; the upload is one-off at its injected size.
TEST(SynthOneOffTest, DecodeGraphReplayIsGpuBoundInference) {
  for (std::vector<std::string> params :
       {std::vector<std::string>{}, {"upload_ms=8"}, {"upload_ms=8", "profiler_steps=0"}}) {
    const std::string what = Shape("decode-graph-replay", params);
    SynthDiagnosis s = RunScenario("decode-graph-replay", params);
    ASSERT_NE(s.run, nullptr);
    const Diagnosis& d = s.run->diagnosis;
    EXPECT_EQ(JobKindName(d.job.kind), "inference") << what;
    ASSERT_FALSE(d.findings.empty()) << what;
    EXPECT_EQ(d.findings.front().id, "compute.gpu_bound")
        << what << ": top is " << d.findings.front().title;
    for (const Finding& f : d.findings) {
      EXPECT_NE(f.id.rfind("launch.", 0), 0u) << what << ": " << f.title;
      EXPECT_NE(f.id.rfind("quality.", 0), 0u) << what << ": " << f.title;
    }
    for (const char* training_only : {"fused=True", "FSDP", "zero_grad", "GradScaler"})
      EXPECT_FALSE(PrintsFix(d, training_only)) << what << ": " << training_only;
    const double upload = TruthMs(s.truth, "graph_upload_ns");
    if (upload > 0) {
      EXPECT_NEAR(MetricMs(s, "warmup.graph_capture_ms"), upload, 0.10 * upload) << what;
    } else {
      EXPECT_LT(MetricMs(s, "warmup.graph_capture_ms"), 0) << what;
    }
  }
}

}  // namespace diagnose_synth_test
}  // namespace gpuwhy
