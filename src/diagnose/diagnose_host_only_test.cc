// A trace without GPU work (PyTorch's legacy profiler export, a CPU-only run) is diagnosed
// from the host side: a DataLoader holding most of each ProfilerStep is input.dataloader_wait.
#include <gtest/gtest.h>

#include <string>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {
namespace diagnose_host_only_test {

// Steps of 10 ms on one host thread (the legacy export's shape: no cat, pid "CPU functions"),
// the DataLoader's __next__ taking |loader_us| of each, an op taking 500 us after it.
std::string HostOnlyTrace(int loader_us) {
  std::string json = "[";
  for (int step = 0; step < 4; ++step) {
    int t0 = 1000 + step * 10000;
    auto event = [&](const std::string& name, int ts, int dur) {
      json += R"({"name": ")" + name + R"(", "ph": "X", "ts": )" + std::to_string(ts) +
              R"(, "dur": )" + std::to_string(dur) +
              R"(, "tid": 1, "pid": "CPU functions", "args": {}}, )";
    };
    event("ProfilerStep#" + std::to_string(step + 5), t0, 10000);
    event("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 10, loader_us);
    event("aten::addmm", t0 + 20 + loader_us, 500);
  }
  json.resize(json.size() - 2);
  return json + "]";
}

Diagnosis DiagnoseBytes(const std::string& json) {
  auto trace = ImportKinetoBytes(json, "host_only.json");
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  TraceAnalysis analysis = AnalyzeTrace(*trace);
  return Diagnose(*trace, analysis, DiagnoseOptions{});
}

TEST(DiagnoseHostOnlyTest, ADataLoaderHoldingTheStepIsTheFindingWithoutAGpu) {
  Diagnosis d = DiagnoseBytes(HostOnlyTrace(8000));
  ASSERT_FALSE(d.findings.empty());
  const Finding& f = d.findings.front();
  EXPECT_EQ(f.id, "input.dataloader_wait");
  EXPECT_GE(static_cast<int>(f.severity), static_cast<int>(Severity::kHigh)) << "80% of the step";
  EXPECT_NEAR(static_cast<double>(f.recoverable_ns_per_step), 8.0e6, 0.1e6);
  EXPECT_EQ(f.idle_recoverable_ns_per_step, 0) << "no GPU, no GPU idle";
  EXPECT_NE(f.title.find("no GPU work"), std::string::npos) << f.title;
  EXPECT_EQ(d.step_count, 4);
}

TEST(DiagnoseHostOnlyTest, ASmallDataLoaderShareIsAssessedAndQuiet) {
  Diagnosis d = DiagnoseBytes(HostOnlyTrace(200));
  for (const Finding& f : d.findings) EXPECT_NE(f.id, "input.dataloader_wait");
  bool assessed = false;
  for (const RuleOutcome& o : d.outcomes) {
    if (o.rule_id == "input.dataloader_wait") assessed = o.status == AssessStatus::kAssessed;
  }
  EXPECT_TRUE(assessed);
}

}  // namespace diagnose_host_only_test
}  // namespace gpuwhy
