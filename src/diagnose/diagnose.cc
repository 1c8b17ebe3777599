#include "diagnose/diagnose.h"

#include <fmt/format.h>

#include <algorithm>

#include "diagnose/checklist.h"
#include "diagnose/finding_builder.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {

Severity SeverityForShare(double pct, const SeverityBands& bands) {
  if (pct >= bands.critical_pct) return Severity::kCritical;
  if (pct >= bands.high_pct) return Severity::kHigh;
  if (pct >= bands.medium_pct) return Severity::kMedium;
  if (pct >= bands.low_pct) return Severity::kLow;
  return Severity::kInfo;
}

std::string_view AssessStatusName(AssessStatus s) {
  switch (s) {
    case AssessStatus::kAssessed: return "assessed";
    case AssessStatus::kPartly: return "partly";
    case AssessStatus::kNotAssessed: return "not assessed";
  }
  return "not assessed";
}

const Finding* Diagnosis::Find(std::string_view id) const {
  for (const Finding& f : findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

double RankingKey(const Finding& f) {
  static constexpr double kWeight[] = {0.5, 0.75, 1.0};  // low, medium, high confidence
  return static_cast<double>(f.recoverable_ns_per_step) *
         kWeight[static_cast<size_t>(f.confidence)];
}

Severity Diagnosis::MaxSeverity() const {
  Severity max = Severity::kInfo;
  for (const Finding& f : findings) max = std::max(max, f.severity);
  return max;
}

namespace {

// One outcome per catalog rule, in catalog order.
void OrderOutcomes(const Catalog& catalog, Diagnosis& d) {
  std::vector<RuleOutcome> ordered;
  for (const RuleSpec& spec : catalog.rules()) {
    auto it = std::find_if(d.outcomes.begin(), d.outcomes.end(),
                           [&](const RuleOutcome& o) { return o.rule_id == spec.id; });
    if (it != d.outcomes.end()) {
      ordered.push_back(std::move(*it));
    } else {
      ordered.push_back({spec.id, AssessStatus::kNotAssessed, false, "not evaluated"});
    }
  }
  d.outcomes = std::move(ordered);
}

}  // namespace

void RankFindings(std::vector<Finding>& findings) {
  for (Finding& f : findings) ApplyEvidencePolicy(f);
  // Findings at medium or above come first: a low finding (secondary, or a cannot-tell) never
  // reads as the headline above a medium one, whatever its estimate.
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    bool ma = a.severity >= Severity::kMedium, mb = b.severity >= Severity::kMedium;
    if (ma != mb) return ma;
    double ka = RankingKey(a), kb = RankingKey(b);
    if (ka != kb) return ka > kb;
    if (a.recoverable_ns_per_step != b.recoverable_ns_per_step) {
      return a.recoverable_ns_per_step > b.recoverable_ns_per_step;
    }
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.id < b.id;
  });
}

namespace {

constexpr double kQueuedNotePct = 10;  // of the step

void AddNotes(const Trace& trace, const TraceAnalysis& analysis, Diagnosis& d) {
  if (d.steps_synthesized) {
    d.notes.push_back(
        "no ProfilerStep in the trace: one 'step' spans the whole trace; per-step "
        "numbers are per trace");
  }
  if (d.step_ns == 0) {
    d.notes.push_back("no analysable GPU work: nothing to diagnose");
  } else if (trace.active_devices().empty()) {
    d.notes.push_back("no GPU work in the trace: only the host-side step breakdown is assessed");
  }
  for (const DataQualityIssue& issue : analysis.data_quality.issues) {
    if (issue.severity == QualitySeverity::kInfo) continue;
    d.notes.push_back(std::string(QualitySeverityName(issue.severity)) + ": " + issue.message);
  }
}

// Queued-wait idle that no rule explained: not host-bound, and no fix is known, so it is a
// note rather than a finding (idle_gaps.h names what it can be).
void NoteUnclaimedQueuedWait(double queued_ns, Diagnosis& d) {
  if (d.step_ns <= 0 || queued_ns < kQueuedNotePct / 100.0 * static_cast<double>(d.step_ns)) return;
  d.notes.push_back(fmt::format(
      "GPU idle {:.3f} ms/step ({:.1f}% of the step) while work was already queued on it "
      "(idle.queued_wait_ms): the device waited on something other than the host: another "
      "stream's or device's event, a CUDA graph's first replay, another process on the GPU, "
      "or GPU events missing from the trace (a sampled capture)",
      queued_ns / kNsPerMs, 100.0 * queued_ns / static_cast<double>(d.step_ns)));
}

}  // namespace

Diagnosis Diagnose(const Trace& trace, const TraceAnalysis& analysis,
                   const DiagnoseOptions& options) {
  Diagnosis d;
  d.rank = trace.rank.rank;
  d.steps_synthesized = analysis.steps.extents.synthesized;
  RuleContext ctx(trace, analysis, options, d);
  d.step_count = ctx.step_count;
  d.step_ns = ctx.step_ns;
  double idle = 0;
  for (size_t c = 0; c < kIdleCauseCount; ++c) idle += ctx.IdleLeft(static_cast<IdleCause>(c));
  d.idle_ns_per_step = static_cast<DurationNs>(idle);
  // Order matters: idle-based rules claim their cause's idle time in the list's order (see
  // docs/findings.md "Recoverable time").
  EvaluateTraceRules(ctx);
  d.job = analysis.job;
  d.job_known = true;
  for (Finding& f : d.findings) DropInapplicableFixes(f, d.job);
  NoteUnclaimedQueuedWait(ctx.IdleLeft(IdleCause::kQueuedWait), d);
  OrderOutcomes(options.catalog, d);
  RankFindings(d.findings);
  AddNotes(trace, analysis, d);
  d.checklist = BuildChecklist(trace, analysis, options.catalog, d);
  return d;
}

}  // namespace gpuwhy
