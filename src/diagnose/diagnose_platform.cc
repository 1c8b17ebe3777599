#include "diagnose/diagnose_platform.h"

#include "diagnose/platform_context.h"

namespace gpuwhy {

Finding& PlatformContext::AddFinding(std::string_view rule_id, Severity severity,
                                     std::string title) {
  const RuleSpec* spec = catalog.Find(rule_id);
  GPUWHY_CHECK(spec != nullptr);
  Finding f;
  f.id = std::string(rule_id);
  f.bottleneck_class = spec->bottleneck_class;
  f.severity = severity;
  f.title = std::move(title);
  f.confidence = Confidence::kHigh;  // read from the source, not inferred from timing
  f.fixes = spec->fixes;
  f.verify = spec->verify;
  diagnosis.findings.push_back(std::move(f));
  return diagnosis.findings.back();
}

void PlatformContext::Outcome(std::string_view rule_id, AssessStatus status, bool fired,
                              std::string note) {
  diagnosis.outcomes.push_back({std::string(rule_id), status, fired, std::move(note)});
}

void AddPlatformEvidence(Finding& f, std::string id, double value, std::string unit,
                         std::string comparison, double threshold, std::string source) {
  FindingEvidence e;
  e.metric = Metric{std::move(id), MetricScope{}, value, std::move(unit)};
  e.comparison = std::move(comparison);
  e.threshold = threshold;
  e.threshold_source = std::move(source);
  f.evidence.push_back(std::move(e));
}

void AddQuote(Finding& f, const SourceQuote& q, size_t max) {
  if (f.quotes.size() >= max || q.text.empty()) return;
  for (const SourceQuote& have : f.quotes) {
    if (have.file == q.file && have.line == q.line) return;
  }
  f.quotes.push_back(q);
}

Diagnosis DiagnoseSystemFacts(const SystemFacts& facts, const DiagnoseOptions& options) {
  Diagnosis d;
  PlatformContext ctx{facts, options.catalog, d};
  EvaluateHardwareRules(ctx);
  EvaluateFabricRules(ctx);
  EvaluateEnvironmentRules(ctx);
  BuildPlatformChecklist(ctx);
  for (const std::string& problem : facts.problems) d.notes.push_back("skipped: " + problem);
  RankFindings(d.findings);
  return d;
}

}  // namespace gpuwhy
