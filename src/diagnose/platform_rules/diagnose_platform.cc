#include "diagnose/diagnose_platform.h"

#include <fmt/format.h>

#include "diagnose/finding_builder.h"
#include "diagnose/outcome_recorder.h"
#include "diagnose/platform_rules/platform_rules.h"

namespace gpuwhy {

Finding& PlatformContext::AddFinding(std::string_view rule_id, Severity severity,
                                     std::string title) {
  // Read from the source, not inferred from timing: high confidence.
  Finding f = StartFinding(catalog.Spec(rule_id), Confidence::kHigh);
  f.severity = severity;
  f.title = std::move(title);
  diagnosis.findings.push_back(std::move(f));
  return diagnosis.findings.back();
}

void PlatformContext::Outcome(std::string_view rule_id, AssessStatus status, bool fired,
                              std::string note) {
  RecordOutcome(diagnosis.outcomes, OutcomeMerge::kAppend, rule_id, status, fired, std::move(note));
}

void AddPlatformEvidence(Finding& f, std::string id, double value, std::string unit,
                         std::string comparison, double threshold, std::string source) {
  AddEvidence(f, Metric{std::move(id), MetricScope{}, value, std::move(unit)},
              std::move(comparison), threshold, nullptr);
  f.evidence.back().threshold_source = std::move(source);
}

void AddQuote(Finding& f, const SourceQuote& q, size_t max) {
  if (f.quotes.size() >= max || q.text.empty()) return;
  for (const SourceQuote& have : f.quotes) {
    if (have.file == q.file && have.line == q.line) return;
  }
  f.quotes.push_back(q);
}

namespace {

// One note per kept detail, then one for the occurrences past them.
void AddProblemNotes(const DataProblems& problems, std::vector<std::string>& notes) {
  for (DataProblem kind : problems.Kinds()) {
    const std::vector<std::string>& details = problems.Details(kind);
    for (const std::string& detail : details) notes.push_back("skipped: " + detail);
    int64_t more = problems.Get(kind) - static_cast<int64_t>(details.size());
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    if (more > 0)
      notes.push_back(fmt::format("skipped: {} more {} ({})", more, info.id, info.description));
  }
}

}  // namespace

Diagnosis DiagnoseSystemFacts(const SystemFacts& facts, const DiagnoseOptions& options) {
  Diagnosis d;
  PlatformContext ctx{facts, options.catalog, d};
  EvaluateAll(PlatformRuleFamilies(), ctx);
  BuildPlatformChecklist(ctx);
  AddProblemNotes(facts.problems, d.notes);
  RankFindings(d.findings);
  return d;
}

}  // namespace gpuwhy
