// The one way every kind of rule records what it assessed (RuleOutcome rows of a Diagnosis).
// The kinds differ only in how a rule's second outcome merges with its first; that is the
// policy each context passes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnose.h"

namespace gpuwhy {

enum class OutcomeMerge {
  // One row per rule; a later outcome replaces the status, fired sticks, a note replaces
  // (trace rules: a rule may first say why it cannot assess, then be assessed after all).
  kLatest,
  // One row per rule evaluated once per GPU: a later GPU never downgrades a fired or assessed
  // row, and a note is kept only while nothing fired (metric-series rules).
  kPerDevice,
  // Every outcome is its own row (gpuwhy doctor's rules record once each; comm.straggler
  // records one row per late rank).
  kAppend,
};

void RecordOutcome(std::vector<RuleOutcome>& outcomes, OutcomeMerge merge, std::string_view rule_id,
                   AssessStatus status, bool fired, std::string note);

}  // namespace gpuwhy
