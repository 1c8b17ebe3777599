// Shared by the signal rules (diagnose_signals*.cc): the catalog, the analysis, and how a
// finding from series is started, given evidence and emitted (one finding per id; further
// GPUs add evidence). Internal to src/diagnose.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>

#include "diagnose/diagnose_signals.h"
#include "diagnose/finding_builder.h"
#include "diagnose/outcome_recorder.h"

namespace gpuwhy {

inline constexpr const char* kPcieRule = "platform.pcie_downgraded";
inline constexpr const char* kNearCapacity = "memory.near_capacity";

class SignalRuleContext {
 public:
  SignalRuleContext(const SignalAnalysis& a, const DiagnoseOptions& o, Diagnosis& d)
      : a_(a), options_(o), catalog_(o.catalog), d_(d) {}

  const RuleParam& P(const ParamRef& param) const { return catalog_.Get(param); }

  Finding Start(std::string_view id) const {
    // Few or untimed samples are a thin basis for a verdict.
    Confidence confidence =
        a_.times_synthesized || MinSamples() < 10 ? Confidence::kLow : Confidence::kMedium;
    return StartFinding(catalog_.Spec(id), confidence);
  }

  static void Evidence(Finding& f, std::string id, int32_t device, double value, std::string unit,
                       const char* cmp, double threshold, const RuleParam* param) {
    AddEvidence(f, Metric{std::move(id), MetricScope::Device(device), value, std::move(unit)}, cmp,
                threshold, param);
  }

  void Emit(Finding f, std::initializer_list<TitleArg> args) {
    f.title =
        FormatTitle(catalog_.Spec(f.id), std::span<const TitleArg>(args.begin(), args.size()));
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
    RecordOutcome(d_.outcomes, OutcomeMerge::kPerDevice, id, status, fired, std::move(note));
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

}  // namespace gpuwhy
