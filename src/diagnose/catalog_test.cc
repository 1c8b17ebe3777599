// The catalog's content (every required id, sourced thresholds, fixes) and threshold
// overrides from "RULE.PARAM=VALUE" lines and config files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "diagnose/catalog.h"
#include "diagnose/diagnose.h"
#include "diagnose/diagnose_platform.h"
#include "diagnose/diagnose_signals.h"
#include "diagnose/snapshot_rules/snapshot_rules.h"

namespace gpuwhy {
namespace catalog_test {

TEST(CatalogTest, HoldsEveryRequiredRuleOnce) {
  const Catalog& catalog = Catalog::Default();
  for (const char* id : {"input.dataloader_wait",      "input.pageable_copies",
                         "input.h2d_in_critical_path", "host.cpu_bound_gaps",
                         "host.periodic_stall",        "host.dataparallel",
                         "memory.near_capacity",       "memory.allocator_churn",
                         "memory.small_batch_gemms",   "comm.exposed",
                         "comm.low_bus_bandwidth",     "comm.no_overlap",
                         "launch.tiny_kernels",        "launch.launch_bound",
                         "launch.sync_points",         "launch.queue_starved",
                         "compute.no_tensor_cores",    "compute.memory_bound_elementwise",
                         "compute.unfused_attention",  "platform.throttling",
                         "platform.pcie_downgraded",   "platform.xid_errors",
                         "platform.contention"}) {
    EXPECT_NE(catalog.Find(id), nullptr) << id;
  }
  std::set<std::string> ids;
  std::set<BottleneckClass> classes;
  for (const RuleSpec& spec : catalog.rules()) {
    EXPECT_TRUE(ids.insert(spec.id).second) << "duplicate " << spec.id;
    classes.insert(spec.bottleneck_class);
    EXPECT_FALSE(spec.title_template.empty()) << spec.id;
    EXPECT_FALSE(spec.fixes.empty()) << spec.id;
    EXPECT_FALSE(spec.verify.empty()) << spec.id;
    EXPECT_FALSE(spec.capture_command.empty()) << spec.id;
    for (const RuleParam& p : spec.params) {
      EXPECT_FALSE(p.source.empty()) << spec.id << "." << p.name;
      EXPECT_EQ(p.name.find('.'), std::string::npos) << spec.id << "." << p.name;
    }
  }
  EXPECT_EQ(classes.size(), 8u);  // the seven places, and quality (what the capture cannot show)
}

// Each kind's rule lists declare handles to the parameters their evaluations read; each must
// name a parameter one of that kind's own specs declares, and resolve in the catalog (Default()
// also checks this at start-up).
TEST(CatalogTest, EveryDeclaredParamHandleNamesAParameterOfItsKindsSpecs) {
  struct Kind {
    const char* name;
    std::vector<RuleSpec> (*specs)();
    std::vector<const ParamRef*> (*params)();
  };
  const Catalog& catalog = Catalog::Default();
  EXPECT_TRUE(catalog.unresolved_params().empty());
  std::set<const ParamRef*> seen;
  for (const Kind& kind : {Kind{"trace", TraceRuleSpecs, TraceParamRefs},
                           Kind{"platform", PlatformRuleSpecs, PlatformParamRefs},
                           Kind{"signal", SignalRuleSpecs, SignalParamRefs},
                           Kind{"cross-rank", CrossRankRuleSpecs, CrossRankParamRefs}}) {
    std::vector<RuleSpec> specs = kind.specs();
    for (const ParamRef* ref : kind.params()) {
      std::string label =
          std::string(kind.name) + ": " + std::string(ref->rule) + "." + std::string(ref->name);
      EXPECT_TRUE(seen.insert(ref).second) << "listed twice: " << label;
      auto spec = std::find_if(specs.begin(), specs.end(),
                               [&](const RuleSpec& s) { return s.id == ref->rule; });
      ASSERT_NE(spec, specs.end()) << "not a rule of this kind: " << label;
      EXPECT_NE(spec->FindParam(ref->name), nullptr) << "not declared by its spec: " << label;
      EXPECT_EQ(catalog.Get(*ref).name, ref->name) << label;
      EXPECT_EQ(&catalog.Get(*ref), catalog.Find(ref->rule)->FindParam(ref->name)) << label;
    }
  }
}

// The other way round: every parameter a spec declares has one handle, so an override of it
// reaches an evaluation.
TEST(CatalogTest, EverySpecParamHasAHandle) {
  std::set<std::string> handles;
  for (const ParamRef* ref : DeclaredParamRefs()) {
    EXPECT_TRUE(handles.insert(std::string(ref->rule) + "." + std::string(ref->name)).second)
        << "two handles for " << ref->rule << "." << ref->name;
  }
  std::set<std::string> unread;
  for (const RuleSpec& spec : Catalog::Default().rules()) {
    for (const RuleParam& p : spec.params) {
      if (!handles.contains(spec.id + "." + p.name)) unread.insert(spec.id + "." + p.name);
    }
  }
  EXPECT_TRUE(unread.empty()) << *unread.begin();
}

// A rule that reads through a handle no rule list declares (or that names no declared
// parameter) is a programmer error, caught on its first read.
TEST(CatalogDeathTest, ReadingAnUndeclaredParamIsAProgrammerError) {
  static constexpr ParamRef kUnlisted{"input.dataloader_wait", "min_step_pct"};
  EXPECT_DEATH((void)Catalog::Default().Get(kUnlisted), "not declared by a rule list");
  EXPECT_DEATH((void)Catalog::Default().Spec("input.no_such_rule"), "unknown rule");
}

TEST(CatalogTest, AnchorThresholdsCarryTheirSource) {
  const Catalog& c = Catalog::Default();
  EXPECT_EQ(c.Param("input.dataloader_wait", "min_step_pct"), 5);
  EXPECT_NE(
      c.Find("input.dataloader_wait")->FindParam("min_step_pct")->source.find("TensorBoard plugin"),
      std::string::npos);
  EXPECT_EQ(c.Param("input.dataloader_wait", "high_pct"), 20);
  EXPECT_EQ(c.Param("comm.exposed", "min_step_pct"), 10);
  EXPECT_EQ(c.Param("memory.near_capacity", "peak_pct"), 90);
  EXPECT_EQ(c.Param("host.periodic_stall", "long_gap_ms"), 500);
  EXPECT_EQ(c.Param("launch.launch_bound", "max_delay_us"), 100);
  EXPECT_EQ(c.Param("launch.queue_starved", "max_kernel_util_pct"), 50);
}

TEST(CatalogTest, DataLoaderFixesNameTheKnobs) {
  std::string code;
  for (const Fix& f : Catalog::Default().Find("input.dataloader_wait")->fixes) code += f.code;
  for (const char* knob : {"num_workers", "pin_memory=True", "persistent_workers=True",
                           "prefetch_factor", "non_blocking=True"}) {
    EXPECT_NE(code.find(knob), std::string::npos) << knob;
  }
}

TEST(OverrideTest, GoodLinesChangeOnlyThisCatalog) {
  Catalog c = Catalog::Default();
  ASSERT_TRUE(c.ApplyOverride("input.dataloader_wait.min_step_pct=3").ok());
  EXPECT_EQ(c.Param("input.dataloader_wait", "min_step_pct"), 3);
  ASSERT_TRUE(c.ApplyOverride("  comm.exposed.min_step_pct =  12.5 ").ok());
  EXPECT_EQ(c.Param("comm.exposed", "min_step_pct"), 12.5);
  ASSERT_TRUE(c.ApplyOverride("comm.low_bus_bandwidth.min_message_bytes=1e6").ok());
  EXPECT_EQ(c.Param("comm.low_bus_bandwidth", "min_message_bytes"), 1e6);
  EXPECT_NE(c.Find("comm.exposed")->FindParam("min_step_pct")->source.find("override"),
            std::string::npos);
  EXPECT_EQ(Catalog::Default().Param("input.dataloader_wait", "min_step_pct"), 5);
}

TEST(OverrideTest, BadLinesSayWhatIsWrong) {
  Catalog c = Catalog::Default();
  struct Case {
    const char* line;
    const char* message_part;
  };
  for (const Case& t :
       {Case{"input.dataloader_wait.min_step_pct", "expected RULE.PARAM=VALUE"},
        Case{"nosuchrule.x=1", "unknown rule 'nosuchrule'"},
        Case{"input.nosuch.min_step_pct=1", "unknown rule 'input.nosuch'"},
        Case{"input.dataloader_wait.nosuch=1", "has no parameter 'nosuch'"},
        Case{"input.dataloader_wait.min_step_pct=abc", "not a number"},
        Case{"input.dataloader_wait.min_step_pct=5%", "not a number"},
        Case{"input.dataloader_wait.min_step_pct=", "not a number"},
        Case{"min_step_pct=5", "expected RULE.PARAM"}, Case{"=5", "expected RULE.PARAM"},
        Case{"input.dataloader_wait.min_step_pct=inf", "not a number"}}) {
    Status s = c.ApplyOverride(t.line);
    EXPECT_FALSE(s.ok()) << t.line;
    EXPECT_NE(s.message().find(t.message_part), std::string::npos) << t.line << ": " << s.message();
  }
  EXPECT_EQ(c.Param("input.dataloader_wait", "min_step_pct"), 5);
}

TEST(OverrideTest, ConfigTextSkipsCommentsAndNamesTheBadLine) {
  Catalog c = Catalog::Default();
  ASSERT_TRUE(c.ApplyConfigText("# thresholds for our cluster\n\n"
                                "input.dataloader_wait.min_step_pct = 2  # stricter\n"
                                "comm.exposed.dominant_pct=25\r\n",
                                "gpuwhy.conf")
                  .ok());
  EXPECT_EQ(c.Param("input.dataloader_wait", "min_step_pct"), 2);
  EXPECT_EQ(c.Param("comm.exposed", "dominant_pct"), 25);
  Status s = c.ApplyConfigText("# ok\ncomm.exposed.min_step_pct=5\n\nbogus line\n", "my.conf");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("my.conf:4: ", 0), 0u) << s.message();
}

TEST(OverrideTest, ConfigFileErrorsNameTheFile) {
  Catalog c = Catalog::Default();
  Status missing = c.ApplyConfigFile("/nonexistent/gpuwhy.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent/gpuwhy.conf"), std::string::npos);
  auto path = std::filesystem::path(::testing::TempDir()) /
              ("gpuwhy_overrides_" + std::to_string(getpid()) + ".conf");
  std::ofstream(path) << "launch.sync_points.min_step_pct = 1\nlaunch.sync_points.x = 2\n";
  Status s = c.ApplyConfigFile(path.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(path.string() + ":2: "), std::string::npos) << s.message();
  EXPECT_EQ(c.Param("launch.sync_points", "min_step_pct"), 1);
}

// Adding a rule means its file, its test, its docs/findings.md row and one line in its kind's
// list: these checks catch a rule registered without the rest.
std::set<std::string> ChecklistTitles(const std::vector<ChecklistItem>& items) {
  std::set<std::string> titles;
  for (const ChecklistItem& item : items) titles.insert(item.title);
  return titles;
}

TEST(RuleRegistryTest, EveryRuleIsUniqueDocumentedAndOnAChecklist) {
  std::ifstream in(std::string(GPUWHY_TEST_DATA) + "/../../docs/findings.md");
  ASSERT_TRUE(in) << "docs/findings.md";
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("|")) rows.push_back(line);
  }
  const Catalog& catalog = Catalog::Default();
  std::set<std::string> cross_rank;
  for (const RuleSpec& spec : CrossRankRuleSpecs()) cross_rank.insert(spec.id);
  std::map<Checklist, std::set<std::string>> titles = {
      {Checklist::kTrace, ChecklistTitles(Diagnose(Trace{}, TraceAnalysis{}).checklist)},
      {Checklist::kSignals, ChecklistTitles(DiagnoseSignals(SignalAnalysis{}).checklist)},
      {Checklist::kDoctor, ChecklistTitles(DiagnoseSystemFacts(SystemFacts{}).checklist)}};
  std::set<std::string> ids;
  for (const RuleSpec& spec : catalog.rules()) {
    EXPECT_TRUE(ids.insert(spec.id).second) << "registered twice: " << spec.id;
    bool documented = std::any_of(rows.begin(), rows.end(), [&](const std::string& row) {
      return row.find("`" + spec.id + "`") != std::string::npos;
    });
    EXPECT_TRUE(documented) << spec.id << " has no row in docs/findings.md";
    // The cross-rank diagnosis has no checklist; every other rule feeds one.
    if (cross_rank.count(spec.id) == 0) {
      EXPECT_FALSE(spec.checklist.empty()) << spec.id;
    }
    for (const ChecklistRef& ref : spec.checklist) {
      EXPECT_EQ(titles[ref.checklist].count(ref.item), 1u)
          << spec.id << " names checklist item '" << ref.item << "', which its checklist lacks";
    }
  }
  size_t registered = TraceRuleSpecs().size() + PlatformRuleSpecs().size() +
                      SignalRuleSpecs().size() + CrossRankRuleSpecs().size() +
                      SnapshotRuleSpecs().size();
  EXPECT_EQ(catalog.rules().size(), registered);
}

}  // namespace catalog_test
}  // namespace gpuwhy
