// The one way every kind of rule (trace, metric series, platform facts, every rank) starts a
// finding from its spec, gives it evidence with the threshold that fired and writes its title.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "diagnose/catalog.h"
#include "diagnose/finding.h"

namespace gpuwhy {

// A named argument of a title template: a number, or a string when |text| is set.
struct TitleArg {
  const char* name;
  double value = 0;
  std::string_view text = {};  // set (even to ""): the argument is this text, not |value|
};

// A finding pre-filled from its spec: id, class, default severity, fixes and verify text.
Finding StartFinding(const RuleSpec& spec, Confidence confidence);

// One evidence line; the threshold's source comes from |param| (none for context numbers).
void AddEvidence(Finding& f, Metric metric, std::string comparison, double threshold,
                 const RuleParam* param);

// Moves each fix whose needs |facts| contradict from f.fixes to f.fixes_left_out.
void DropInapplicableFixes(Finding& f, const JobFacts& facts);

// The evidence rules every finding keeps, whichever rule made it (docs/findings.md "Evidence"):
// a line shown as a reason satisfies its comparison, and one that does not is shown as context
// (no comparison); a context number carries no comparison; high or critical needs a confidence
// of at least medium and, for a per-step class, a measured recoverable time, else it is medium.
void ApplyEvidencePolicy(Finding& f);

// The spec's title template filled with |args|; the template itself when an argument is
// missing or malformed.
std::string FormatTitle(const RuleSpec& spec, std::span<const TitleArg> args);

}  // namespace gpuwhy
