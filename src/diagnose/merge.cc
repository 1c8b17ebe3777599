#include "diagnose/merge.h"

#include <algorithm>

namespace gpuwhy {
namespace {

int AssessRank(AssessStatus s) {
  switch (s) {
    case AssessStatus::kAssessed: return 2;
    case AssessStatus::kPartly: return 1;
    case AssessStatus::kNotAssessed: return 0;
  }
  return 0;
}

template <typename T, typename Same>
void AppendMissing(std::vector<T>& into, const std::vector<T>& from, Same same) {
  for (const T& item : from) {
    bool present =
        std::any_of(into.begin(), into.end(), [&](const T& have) { return same(have, item); });
    if (!present) into.push_back(item);
  }
}

// The headline is the more severe finding; the other contributes what it saw.
void MergeFinding(Finding& into, Finding from) {
  bool from_leads = from.severity > into.severity ||
                    (from.severity == into.severity &&
                     from.recoverable_ns_per_step > into.recoverable_ns_per_step);
  if (from_leads) std::swap(into, from);
  AppendMissing(into.evidence, from.evidence,
                [](const FindingEvidence& a, const FindingEvidence& b) {
                  return a.metric.id == b.metric.id && a.metric.scope == b.metric.scope;
                });
  AppendMissing(into.ranges, from.ranges, [](const EvidenceRange& a, const EvidenceRange& b) {
    return a.start == b.start && a.end == b.end && a.device == b.device && a.kind == b.kind;
  });
  AppendMissing(into.top_events, from.top_events,
                [](const std::string& a, const std::string& b) { return a == b; });
  AppendMissing(into.quotes, from.quotes, [](const SourceQuote& a, const SourceQuote& b) {
    return a.file == b.file && a.line == b.line && a.text == b.text;
  });
  AppendMissing(into.fixes, from.fixes,
                [](const Fix& a, const Fix& b) { return a.action == b.action; });
  into.confidence = std::max(into.confidence, from.confidence);
  if (into.verify.empty()) into.verify = std::move(from.verify);
}

void MergeOutcome(std::vector<RuleOutcome>& into, RuleOutcome from) {
  auto it = std::find_if(into.begin(), into.end(),
                         [&](const RuleOutcome& o) { return o.rule_id == from.rule_id; });
  if (it == into.end()) {
    into.push_back(std::move(from));
    return;
  }
  bool fired = it->fired || from.fired;
  if (AssessRank(from.status) > AssessRank(it->status)) *it = std::move(from);
  it->fired = fired;
}

void MergeChecklistItem(std::vector<ChecklistItem>& into, ChecklistItem from) {
  auto same = std::find_if(into.begin(), into.end(), [&](const ChecklistItem& c) {
    return c.section == from.section && c.title == from.title;
  });
  if (same == into.end()) {
    // After the last item of its section (sections are in checklist order).
    auto pos = std::find_if(into.begin(), into.end(), [&](const ChecklistItem& c) {
      return static_cast<int>(c.section) > static_cast<int>(from.section);
    });
    into.insert(pos, std::move(from));
    return;
  }
  ChecklistItem& have = *same;
  AppendMissing(have.rule_ids, from.rule_ids,
                [](const std::string& a, const std::string& b) { return a == b; });
  if (AssessRank(from.status) > AssessRank(have.status)) {
    std::string earlier = std::move(have.detail);
    have.status = from.status;
    have.missing = std::move(from.missing);
    have.command = std::move(from.command);
    have.detail = std::move(from.detail);
    if (!earlier.empty() && earlier != have.detail) have.detail += "; " + earlier;
  } else if (!from.detail.empty() && from.detail != have.detail) {
    have.detail += have.detail.empty() ? from.detail : "; " + from.detail;
  }
}

}  // namespace

void MergeDiagnosis(Diagnosis& into, Diagnosis from) {
  if (into.step_ns == 0 && from.step_ns > 0) {
    into.step_ns = from.step_ns;
    into.step_count = from.step_count;
    into.idle_ns_per_step = from.idle_ns_per_step;
    into.steps_synthesized = from.steps_synthesized;
  }
  if (into.rank < 0) into.rank = from.rank;
  for (Finding& f : from.findings) {
    auto it = std::find_if(into.findings.begin(), into.findings.end(),
                           [&](const Finding& have) { return have.id == f.id; });
    if (it == into.findings.end()) {
      into.findings.push_back(std::move(f));
    } else {
      MergeFinding(*it, std::move(f));
    }
  }
  for (RuleOutcome& o : from.outcomes) MergeOutcome(into.outcomes, std::move(o));
  for (ChecklistItem& c : from.checklist) MergeChecklistItem(into.checklist, std::move(c));
  AppendMissing(into.notes, from.notes,
                [](const std::string& a, const std::string& b) { return a == b; });
  RankFindings(into.findings);
}

}  // namespace gpuwhy
