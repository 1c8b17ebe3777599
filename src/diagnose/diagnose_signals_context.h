// Shared by the signal rules (diagnose_signals*.cc): the catalog, the analysis, and how a
// finding from series is started, given evidence and emitted (one finding per id; further
// GPUs add evidence). Internal to src/diagnose.
#pragma once

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "diagnose/diagnose_signals.h"

namespace gpuwhy {

inline constexpr const char* kPcieRule = "platform.pcie_downgraded";
inline constexpr const char* kNearCapacity = "memory.near_capacity";

struct SignalTitleArg {
  const char* name;
  fmt::basic_string_view<char> text;  // when set, a string argument
  double value = 0;
};

class SignalRuleContext {
 public:
  SignalRuleContext(const SignalAnalysis& a, const DiagnoseOptions& o, Diagnosis& d)
      : a_(a), options_(o), catalog_(o.catalog), d_(d) {}

  double Param(const char* rule, const char* name) const { return catalog_.Param(rule, name); }
  const RuleParam* P(const char* rule, const char* name) const {
    const RuleSpec* spec = catalog_.Find(rule);
    return spec ? spec->FindParam(name) : nullptr;
  }

  Finding Start(const char* id) const {
    const RuleSpec* spec = catalog_.Find(id);
    Finding f;
    f.id = id;
    if (spec != nullptr) {
      f.bottleneck_class = spec->bottleneck_class;
      f.severity = spec->default_severity;
      f.fixes = spec->fixes;
      f.verify = spec->verify;
    }
    // Few or untimed samples are a thin basis for a verdict.
    f.confidence = a_.times_synthesized || MinSamples() < 10 ? Confidence::kLow
                                                             : Confidence::kMedium;
    return f;
  }

  static void Evidence(Finding& f, std::string id, int32_t device, double value,
                       std::string unit, const char* cmp, double threshold,
                       const RuleParam* param) {
    FindingEvidence e;
    e.metric = Metric{std::move(id), MetricScope::Device(device), value, std::move(unit)};
    e.comparison = cmp;
    e.threshold = threshold;
    if (param != nullptr) e.threshold_source = param->source;
    f.evidence.push_back(std::move(e));
  }

  void Emit(Finding f, std::initializer_list<SignalTitleArg> args) {
    const RuleSpec* spec = catalog_.Find(f.id);
    fmt::dynamic_format_arg_store<fmt::format_context> store;
    for (const SignalTitleArg& arg : args) {
      if (arg.text.size() > 0) {
        store.push_back(fmt::arg(arg.name, std::string(arg.text.data(), arg.text.size())));
      } else {
        store.push_back(fmt::arg(arg.name, arg.value));
      }
    }
    try {
      f.title = spec ? fmt::vformat(spec->title_template, store) : f.id;
    } catch (const fmt::format_error&) {
      f.title = spec->title_template;
    }
    Outcome(f.id, AssessStatus::kAssessed, true);
    auto same = std::find_if(d_.findings.begin(), d_.findings.end(),
                             [&](const Finding& have) { return have.id == f.id; });
    // One finding per id: a second GPU adds its evidence to the first one's.
    if (same == d_.findings.end()) {
      d_.findings.push_back(std::move(f));
      return;
    }
    for (FindingEvidence& e : f.evidence) same->evidence.push_back(std::move(e));
    same->severity = std::max(same->severity, f.severity);
  }

  // For a finding whose title is written by the rule (not from a template).
  void EmitTitled(Finding f) {
    Outcome(f.id, AssessStatus::kAssessed, true);
    d_.findings.push_back(std::move(f));
  }

  void Outcome(std::string_view id, AssessStatus status, bool fired, std::string note = "") {
    for (RuleOutcome& o : d_.outcomes) {
      if (o.rule_id != id) continue;
      o.fired = o.fired || fired;
      if (fired || o.status == AssessStatus::kNotAssessed) o.status = status;
      if (!note.empty() && !o.fired) o.note = std::move(note);
      return;
    }
    d_.outcomes.push_back({std::string(id), status, fired, std::move(note)});
  }

  Severity ForShare(double pct) const { return SeverityForShare(pct, options_.bands); }

  size_t MinSamples() const {
    size_t n = 0;
    for (const GpuSignals& g : a_.gpus) n = std::max(n, g.samples);
    return std::max(n, a_.host.samples);
  }

  const SignalAnalysis& a_;
  const DiagnoseOptions& options_;
  const Catalog& catalog_;
  Diagnosis& d_;
};

// The rules, by group (diagnose_signals.cc, diagnose_signals_platform.cc).
void EvaluateUtilizationSignals(SignalRuleContext& r);
void EvaluateHostSignals(SignalRuleContext& r);
void EvaluatePlatformSignals(SignalRuleContext& r);
void EvaluateMemorySignals(SignalRuleContext& r);

}  // namespace gpuwhy
