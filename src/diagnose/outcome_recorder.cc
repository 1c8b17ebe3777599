#include "diagnose/outcome_recorder.h"

#include <algorithm>

namespace gpuwhy {
namespace {

void Merge(RuleOutcome& o, OutcomeMerge merge, AssessStatus status, bool fired, std::string note) {
  if (merge == OutcomeMerge::kLatest) {
    o.status = status;
    o.fired = o.fired || fired;
    if (!note.empty()) o.note = std::move(note);
    return;
  }
  o.fired = o.fired || fired;
  if (fired || o.status == AssessStatus::kNotAssessed) o.status = status;
  if (!note.empty() && !o.fired) o.note = std::move(note);
}

}  // namespace

void RecordOutcome(std::vector<RuleOutcome>& outcomes, OutcomeMerge merge, std::string_view rule_id,
                   AssessStatus status, bool fired, std::string note) {
  if (merge != OutcomeMerge::kAppend) {
    auto have = std::find_if(outcomes.begin(), outcomes.end(),
                             [&](const RuleOutcome& o) { return o.rule_id == rule_id; });
    if (have != outcomes.end()) return Merge(*have, merge, status, fired, std::move(note));
  }
  outcomes.push_back({std::string(rule_id), status, fired, std::move(note)});
}

}  // namespace gpuwhy
