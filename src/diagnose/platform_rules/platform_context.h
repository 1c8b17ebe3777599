// Shared state of the platform rules (platform_rules/): the facts,
// the catalog, the diagnosis being built and small helpers to add findings and outcomes.
#pragma once

#include <string>
#include <string_view>

#include "diagnose/diagnose.h"
#include "model/system_facts.h"

namespace gpuwhy {

struct PlatformContext {
  const SystemFacts& facts;
  const Catalog& catalog;
  Diagnosis& diagnosis;

  // A new finding of |rule_id| with its class, fixes and verify text from the catalog.
  Finding& AddFinding(std::string_view rule_id, Severity severity, std::string title);
  void Outcome(std::string_view rule_id, AssessStatus status, bool fired, std::string note = "");
};

// Evidence without a threshold source when |source| is empty ("context" numbers).
void AddPlatformEvidence(Finding& f, std::string id, double value, std::string unit,
                         std::string comparison = "", double threshold = 0,
                         std::string source = "");
// Appends |q| unless the same file and line is already quoted; at most |max| quotes.
void AddQuote(Finding& f, const SourceQuote& q, size_t max = 8);

}  // namespace gpuwhy
