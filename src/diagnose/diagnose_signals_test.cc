// Each signal rule on series with the injected condition, and quiet on a healthy run.
#include "diagnose/diagnose_signals.h"

#include <gtest/gtest.h>

#include "diagnose/merge.h"

namespace gpuwhy {
namespace diagnose_signals_test {

constexpr DurationNs kTick = 100 * kNsPerMs;

// 200 samples (20 s at 10 Hz) of a healthy GPU 0 at 95%, 4 cores moderately busy.
MetricSeriesSet Healthy() {
  MetricSeriesSet set;
  set.source = "test";
  for (int i = 0; i < 200; ++i) {
    TimeNs t = i * kTick;
    set.Add({"gpu.util_pct", 0, ""}, "%", t, 95);
    set.Add({"gpu.throttle_reasons", 0, ""}, "bitmask", t, 0);
    set.Add({"gpu.mem_used_mib", 0, ""}, "MiB", t, 40000);
    set.Add({"gpu.mem_total_mib", 0, ""}, "MiB", t, 81559);
    set.Add({"gpu.pcie_gen", 0, ""}, "gen", t, 5);
    set.Add({"gpu.pcie_gen_max", 0, ""}, "gen", t, 5);
    set.Add({"gpu.pcie_width", 0, ""}, "lanes", t, 16);
    set.Add({"gpu.pcie_width_max", 0, ""}, "lanes", t, 16);
    set.Add({"gpu.process_seen", 0, "pid 10"}, "bool", t, 1);
    set.Add({"host.cpu_busy_pct", -1, ""}, "%", t, 40);
    set.Add({"host.cpu_iowait_pct", -1, ""}, "%", t, 1);
    set.Add({"thread.cpu_pct", -1, "tid 10"}, "%", t, 60);
  }
  return set;
}

std::vector<std::string> Ids(const Diagnosis& d) {
  std::vector<std::string> ids;
  for (const Finding& f : d.findings) ids.push_back(f.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

const RuleOutcome* OutcomeOf(const Diagnosis& d, std::string_view id) {
  for (const RuleOutcome& o : d.outcomes) {
    if (o.rule_id == id) return &o;
  }
  return nullptr;
}

TEST(DiagnoseSignalsTest, HealthyRunHasNoFindingAndAssessesTheSignalRules) {
  Diagnosis d = DiagnoseSignals(Healthy());
  EXPECT_TRUE(d.findings.empty()) << d.findings[0].title;
  for (const char* id :
       {"compute.low_gpu_utilization", "input.starvation_pattern", "platform.throttling",
        "platform.pcie_downgraded", "platform.contention", "memory.near_capacity", "input.io_bound",
        "host.gil_bound", "host.cpu_saturated"}) {
    ASSERT_NE(OutcomeOf(d, id), nullptr) << id;
    EXPECT_EQ(OutcomeOf(d, id)->status, AssessStatus::kAssessed) << id;
  }
  EXPECT_EQ(OutcomeOf(d, "compute.util_misleading")->status, AssessStatus::kNotAssessed);
  EXPECT_EQ(d.outcomes.size(), Catalog::Default().rules().size());
}

TEST(DiagnoseSignalsTest, EachInjectedConditionFiresItsRule) {
  MetricSeriesSet set = Healthy();
  MetricSeries& util = set.GetOrCreate({"gpu.util_pct", 0, ""}, "%");
  for (size_t i = 0; i < util.size(); ++i) {
    if (i % 10 >= 7) util.value[i] = 3;  // 1 s period, 30% of the time near zero
  }
  MetricSeries& thr = set.GetOrCreate({"gpu.throttle_reasons", 0, ""}, "bitmask");
  for (size_t i = 0; i < 50; ++i) thr.value[i] = 0x40;  // hw thermal, 25% of the time
  for (double& w : set.GetOrCreate({"gpu.pcie_width", 0, ""}, "lanes").value) w = 8;
  for (size_t i = 0; i < 200; ++i) {
    set.Add({"gpu.process_seen", 0, "pid 99"}, "bool", static_cast<TimeNs>(i) * kTick, 1);
  }
  set.GetOrCreate({"gpu.mem_used_mib", 0, ""}, "MiB").value[5] = 80000;  // 98%
  MetricSeries& thread = set.GetOrCreate({"thread.cpu_pct", -1, "tid 10"}, "%");
  for (double& v : thread.value) v = 100;
  Diagnosis d = DiagnoseSignals(set);
  EXPECT_EQ(Ids(d), (std::vector<std::string>{"host.gil_bound", "input.starvation_pattern",
                                              "memory.near_capacity", "platform.contention",
                                              "platform.pcie_downgraded", "platform.throttling"}));
  const Finding* saw = d.Find("input.starvation_pattern");
  EXPECT_NE(saw->title.find("period 1.0 s"), std::string::npos) << saw->title;
  EXPECT_NE(saw->title.find("30% of the time"), std::string::npos) << saw->title;
  const Finding* thermal = d.Find("platform.throttling");
  EXPECT_NE(thermal->title.find("hardware thermal slowdown 25%"), std::string::npos)
      << thermal->title;
  EXPECT_NE(d.Find("platform.pcie_downgraded")->title.find("x8"), std::string::npos);
  // GIL: pinned 100% of the time but the GPU idles only 30% of it.
  EXPECT_NEAR(d.Find("host.gil_bound")->evidence[0].metric.value, 30, 1e-9);
}

TEST(DiagnoseSignalsTest, ThresholdsComeFromTheCatalog) {
  MetricSeriesSet set = Healthy();
  for (double& v : set.GetOrCreate({"gpu.util_pct", 0, ""}, "%").value) v = 60;
  EXPECT_EQ(DiagnoseSignals(set).Find("compute.low_gpu_utilization"), nullptr);
  DiagnoseOptions options;
  ASSERT_TRUE(options.catalog.ApplyOverride("compute.low_gpu_utilization.max_util_pct=70").ok());
  EXPECT_NE(DiagnoseSignals(set, options).Find("compute.low_gpu_utilization"), nullptr);
}

TEST(DiagnoseSignalsTest, BusyButInactiveSmsAreMisleading) {
  MetricSeriesSet set = Healthy();
  for (int i = 0; i < 200; ++i) set.Add({"gpu.sm_active_pct", 0, ""}, "%", i * kTick, 20);
  Diagnosis d = DiagnoseSignals(set);
  ASSERT_NE(d.Find("compute.util_misleading"), nullptr);
  EXPECT_NE(d.Find("compute.util_misleading")->title.find("only 20%"), std::string::npos);
}

TEST(DiagnoseSignalsTest, SaturatedCoresAndIoWaitWhileGpuIdles) {
  MetricSeriesSet set = Healthy();
  for (double& v : set.GetOrCreate({"gpu.util_pct", 0, ""}, "%").value) v = 5;
  for (double& v : set.GetOrCreate({"host.cpu_busy_pct", -1, ""}, "%").value) v = 99;
  MetricSeries& io = set.GetOrCreate({"host.cpu_iowait_pct", -1, ""}, "%");
  for (size_t i = 0; i < 100; ++i) io.value[i] = 40;
  set.Add({"host.cpu_count", -1, ""}, "count", 0, 4);
  Diagnosis d = DiagnoseSignals(set);
  ASSERT_NE(d.Find("host.cpu_saturated"), nullptr);
  EXPECT_NE(d.Find("host.cpu_saturated")->title.find("all 4 CPU cores"), std::string::npos);
  ASSERT_NE(d.Find("input.io_bound"), nullptr);
  EXPECT_NEAR(d.Find("input.io_bound")->evidence[0].metric.value, 50, 1e-9);
}

// The job only sleeps while other processes keep both cores busy (issue 21): not the job's
// saturation, and no "fewer DataLoader workers"; the neighbours are named instead.
TEST(DiagnoseSignalsTest, CoresSaturatedByOtherProcessesAreContentionNotTheJob) {
  MetricSeriesSet set = Healthy();
  for (double& v : set.GetOrCreate({"host.cpu_busy_pct", -1, ""}, "%").value) v = 100;
  set.Add({"host.cpu_count", -1, ""}, "count", 0, 2);
  for (int i = 0; i < 200; ++i) {
    set.Add({"job.cpu_pct", -1, ""}, "%", i * kTick, 0);
    set.Add({"host.other_proc_cpu_pct", -1, "pid 77"}, "%", i * kTick, 199);
  }
  set.GetOrCreate({"host.other_proc_cpu_pct", -1, "pid 77"}, "%").label = "stress";
  Diagnosis d = DiagnoseSignals(set);
  EXPECT_EQ(d.Find("host.cpu_saturated"), nullptr);
  EXPECT_EQ(OutcomeOf(d, "host.cpu_saturated")->status, AssessStatus::kAssessed);
  const Finding* other = d.Find("platform.cpu_contention");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other->title.find("other processes kept all 2 CPU cores busy 100%"), std::string::npos)
      << other->title;
  ASSERT_FALSE(other->top_events.empty());
  EXPECT_NE(other->top_events[0].find("pid 77 stress"), std::string::npos);
  // The same cores saturated by the job itself are the job's.
  for (double& v : set.GetOrCreate({"job.cpu_pct", -1, ""}, "%").value) v = 190;
  Diagnosis own = DiagnoseSignals(set);
  EXPECT_NE(own.Find("host.cpu_saturated"), nullptr);
  EXPECT_EQ(own.Find("platform.cpu_contention"), nullptr);
}

TEST(DiagnoseSignalsTest, MergesIntoOneChecklistWithATraceDiagnosis) {
  Diagnosis trace_like;
  trace_like.checklist.push_back({ChecklistSection::kPlatform,
                                  "clocks and throttling, PCIe link, Xid errors, other processes",
                                  AssessStatus::kNotAssessed,
                                  "not assessed",
                                  "",
                                  "",
                                  {}});
  MetricSeriesSet set = Healthy();
  MergeDiagnosis(trace_like, DiagnoseSignals(set));
  size_t platform_items = 0;
  for (const ChecklistItem& item : trace_like.checklist) {
    if (item.section == ChecklistSection::kPlatform) ++platform_items;
  }
  EXPECT_EQ(platform_items, 1u);
  // Throttling, PCIe and neighbours assessed from series; Xid errors still need the kernel log.
  EXPECT_EQ(trace_like.checklist.back().status, AssessStatus::kPartly);
}

}  // namespace diagnose_signals_test
}  // namespace gpuwhy
