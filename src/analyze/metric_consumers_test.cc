// The metric ids that consumers spell as string literals (the diagnosis, renderers, the
// cross-rank view, diff) are declared: the source files are scanned for literals passed to
// metric lookups. Consumers that use the typed declarations (metric::kFoo) need no scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/metric_registry.h"

namespace gpuwhy {
namespace metric_consumers_test {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(GPUWHY_TEST_DATA) / ".." / "..";

// Ids the diagnosis shows as evidence without any analysis emitting them as metrics.
const std::vector<std::string> kEvidenceOnly = {"signals.sawtooth_collapses"};

struct IdUse {
  std::string where;  // file:line
  std::string id;     // the literal; "{}" where a fmt::format fills in a word
};

// Literals passed to the metric lookups, whitespace and line breaks allowed:
//   ctx.AddMetricEvidence(f, "id", ...)        metrics.Find("id") / metrics.ValueOr("id", ...)
//   summary.MetricValue("id", ...)             ...MetricValue(fmt::format("step.{}_pct", ...))
//   SignalRuleContext::Evidence(f, "id", ...)
std::vector<IdUse> ScanMetricIds(const std::string& text, const std::string& file) {
  static const std::regex kUse(
      R"re((?:AddMetricEvidence|SignalRuleContext::Evidence)\(\s*[\w.]+\s*,\s*"([^"]+)"|)re"
      R"re((?:metrics\s*(?:\.|->)\s*(?:Find|ValueOr)|MetricValue)\(\s*(?:fmt::format\(\s*)?"([^"]+)")re");
  std::vector<IdUse> uses;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kUse); it != std::sregex_iterator();
       ++it) {
    const std::smatch& m = *it;
    std::string id = m[1].matched ? m[1].str() : m[2].str();
    auto line = 1 + std::count(text.begin(), text.begin() + m.position(0), '\n');
    uses.push_back({file + ":" + std::to_string(line), id});
  }
  return uses;
}

bool Declared(const std::string& id) {
  if (id.find("{}") == std::string::npos) return FindMetricDecl(id) != nullptr;
  // A formatted family: the literal is the declaration's id with its placeholder emptied.
  return std::any_of(AllMetricDecls().begin(), AllMetricDecls().end(),
                     [&](const MetricDecl* d) { return d->IsFamily() && d->Id("{}") == id; });
}

TEST(MetricConsumersTest, ScannerFindsEveryLookupForm) {
  std::string text =
      "ctx.AddMetricEvidence(f,\n    \"idle.input_wait_pct\", \">\", 0, nullptr);\n"
      "double v = ctx.metrics.ValueOr(\"step.dataloader_pct\", 0);\n"
      "const Metric* m = a.metrics.Find(\"util.kernel_pct\");\n"
      "s.MetricValue(fmt::format(\"step.{}_pct\", name), 0);\n"
      "SignalRuleContext::Evidence(f, \"signals.util_mean_pct\", g.device, 1, \"%\");\n"
      "catalog.Find(\"comm.straggler\");  set.Find(\"gpu.util_pct\", 0);\n";
  std::vector<IdUse> uses = ScanMetricIds(text, "snippet");
  std::vector<std::string> ids;
  for (const IdUse& u : uses) ids.push_back(u.id);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"idle.input_wait_pct", "step.dataloader_pct",
                                      "util.kernel_pct", "step.{}_pct", "signals.util_mean_pct"}));
  EXPECT_EQ(uses[0].where, "snippet:1");  // where the call starts
  for (const std::string& id : ids) EXPECT_TRUE(Declared(id)) << id;
  EXPECT_FALSE(Declared("step.no_such_metric"));
  EXPECT_FALSE(Declared("step.{}_no_such"));
}

TEST(MetricConsumersTest, ConsumerLiteralsAreDeclared) {
  std::vector<IdUse> uses;
  for (const char* folder : {"src/diagnose", "src/report", "src/ranks", "src/diff"}) {
    fs::path root = kSource / folder;
    ASSERT_TRUE(fs::exists(root)) << root;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      std::string name = entry.path().filename().string();
      bool source = name.ends_with(".cc") || name.ends_with(".h");
      if (!entry.is_regular_file() || !source || name.ends_with("_test.cc")) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      std::string file = fs::relative(entry.path(), kSource).string();
      for (IdUse& u : ScanMetricIds(text.str(), file)) uses.push_back(std::move(u));
    }
  }
  // The diagnosis alone reads a few dozen metrics by literal id: far fewer means the scan
  // patterns no longer match how consumers call the lookups.
  EXPECT_GE(uses.size(), 20u) << "the scan found too few metric lookups";
  for (const IdUse& u : uses) {
    bool evidence_only =
        std::find(kEvidenceOnly.begin(), kEvidenceOnly.end(), u.id) != kEvidenceOnly.end();
    EXPECT_TRUE(evidence_only || Declared(u.id))
        << u.where << ": \"" << u.id << "\" is not a declared metric";
  }
}

}  // namespace metric_consumers_test
}  // namespace gpuwhy
