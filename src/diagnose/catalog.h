// The rule catalog: every finding gpuwhy can emit, as plain data (id, class, thresholds with
// their source, title template, ordered fixes, how to verify). Thresholds are overridable
// with "RULE.PARAM=VALUE" (command line) or a config file of such lines. docs/findings.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "diagnose/finding.h"
#include "diagnose/param_ref.h"

namespace gpuwhy {

// The field engineer's order (docs/knowledge.md): the checklist is printed in this order.
enum class ChecklistSection {
  kBaseline,
  kTimeline,
  kInputAndCpu,
  kCommunication,
  kKernelsAndSync,
  kMemoryAndModel,
  kPlatform,
};
inline constexpr size_t kChecklistSectionCount = 7;
std::string_view ChecklistSectionName(ChecklistSection s);  // "input and CPU"

// The checklists a diagnosis carries: a trace's, metric series' and gpuwhy doctor's.
enum class Checklist { kTrace, kSignals, kDoctor };

// A checklist item a rule's outcome feeds. Each checklist lists its items (titles, sections,
// extra checks); the rules behind an item come from the specs that name it.
struct ChecklistRef {
  Checklist checklist = Checklist::kTrace;
  std::string item;  // the item's title: "DataLoader wait and input copies"
  int position = 0;  // order among the item's rules (ascending, then catalog order)
};

// The platform item of the trace and metric-series checklists, fed by every platform rule.
inline constexpr const char* kPlatformChecklistItem =
    "clocks and throttling, PCIe link, Xid errors, other processes";

// A tunable number of a rule, with where its default comes from.
struct RuleParam {
  std::string name;         // "min_step_pct"
  double value = 0;         // the default, or the override
  std::string unit;         // "%", "ms", "us", "ratio", "count", "bytes", "GB/s"
  std::string source;       // "TensorBoard plugin: DataLoader > 5% of step"
  std::string description;  // what it gates
};

struct RuleSpec {
  std::string id;  // "input.dataloader_wait"
  BottleneckClass bottleneck_class = BottleneckClass::kInput;
  ChecklistSection section = ChecklistSection::kInputAndCpu;
  // Used when the rule cannot estimate recoverable time (structural findings, e.g.
  // memory.near_capacity); otherwise severity comes from the recoverable share of step.
  Severity default_severity = Severity::kLow;
  std::string severity_logic;  // one line for docs: how severity is chosen
  // fmt template with named arguments the rule supplies ("{pct:.0f}% of each step ...").
  std::string title_template;
  std::string recoverable_logic;  // one line: how recoverable time is estimated
  std::vector<RuleParam> params;
  std::vector<Fix> fixes;  // ordered
  std::string verify;      // which metric id should move
  // What a trace must hold for the rule to assess anything, and how to capture it.
  std::string needs;
  std::string capture_command;
  // The checklist items it feeds (cross-rank rules feed none: that diagnosis has no checklist).
  std::vector<ChecklistRef> checklist;

  const RuleParam* FindParam(std::string_view name) const;
};

class Catalog {
 public:
  // Every rule with its default thresholds.
  static const Catalog& Default();

  // Resolves every handle the rule lists declare (DeclaredParamRefs) against |rules|.
  explicit Catalog(std::vector<RuleSpec> rules);

  const std::vector<RuleSpec>& rules() const { return rules_; }
  const RuleSpec* Find(std::string_view id) const;
  // The spec of |id|; a programmer error (CHECK) when unknown.
  const RuleSpec& Spec(std::string_view id) const;
  // A rule's parameter through its handle; a programmer error (CHECK) when no rule list
  // declares the handle or it names no parameter of these rules.
  const RuleParam& Get(const ParamRef& param) const;
  // Declared handles that name no parameter of these rules (none for Default(): it checks).
  const std::vector<ParamRef>& unresolved_params() const { return unresolved_; }
  // The ids of the rules behind one checklist item, in item order.
  std::vector<std::string> ChecklistRules(Checklist checklist, std::string_view item) const;
  // A rule's parameter value; a programmer error (CHECK) when either is unknown.
  double Param(std::string_view rule_id, std::string_view param) const;

  // "RULE.PARAM=VALUE", e.g. "input.dataloader_wait.min_step_pct=3". Whitespace around
  // the parts is ignored. Errors name what is wrong: unknown rule, unknown parameter,
  // bad number.
  Status ApplyOverride(std::string_view assignment);
  // Applies |text| as a config file: one "RULE.PARAM = VALUE" per line, '#' comments,
  // blank lines ignored. Errors read "NAME:LINE: message".
  Status ApplyConfigText(std::string_view text, std::string_view name);
  // Reads and applies a config file (errors name the file and line).
  Status ApplyConfigFile(const std::string& path);

 private:
  struct ResolvedParam {
    const ParamRef* ref;
    size_t rule;   // index into rules_
    size_t param;  // index into that rule's params
  };

  std::vector<RuleSpec> rules_;
  std::vector<ResolvedParam> resolved_;  // by handle address
  std::vector<ParamRef> unresolved_;
};

// The catalog's rules, one explicit list per kind of input (see rule_family.h), in this order.
std::vector<RuleSpec> TraceRuleSpecs();      // trace_rules/trace_rules.cc
std::vector<RuleSpec> PlatformRuleSpecs();   // platform_rules/platform_rules.cc (gpuwhy doctor)
std::vector<RuleSpec> SignalRuleSpecs();     // signal_rules/signal_rules.cc (metric series)
std::vector<RuleSpec> CrossRankRuleSpecs();  // cross_rank_rules/cross_rank_rules.cc

// The parameter handles the same lists declare, in the same order.
std::vector<const ParamRef*> TraceParamRefs();
std::vector<const ParamRef*> PlatformParamRefs();
std::vector<const ParamRef*> SignalParamRefs();
std::vector<const ParamRef*> CrossRankParamRefs();
std::vector<const ParamRef*> DeclaredParamRefs();  // all four

}  // namespace gpuwhy
