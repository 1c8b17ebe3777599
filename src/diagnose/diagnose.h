// The diagnosis: ranked findings with evidence and fixes, the field engineer's checklist and
// the per-step reference time, from one rank's trace and its analyses. docs/design.md
// "Diagnosis"; the catalog of rules is in catalog.h, documented in docs/findings.md.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "diagnose/catalog.h"
#include "diagnose/finding.h"

namespace gpuwhy {

// Severity from the recoverable share of the step (documented in docs/findings.md).
struct SeverityBands {
  double critical_pct = 40;  // the job is mostly waiting on this
  double high_pct = 20;      // TensorFlow profiler: >= 20% highly input-bound
  double medium_pct = 5;     // TensorFlow profiler: >= 5% moderately input-bound
  double low_pct = 1;        // below: info
};
Severity SeverityForShare(double recoverable_pct, const SeverityBands& bands);

struct DiagnoseOptions {
  Catalog catalog = Catalog::Default();  // copy: overrides apply to this one only
  SeverityBands bands;
  size_t max_ranges = 5;  // top time ranges kept per finding
  size_t max_events = 5;  // top event names kept per finding
};

enum class AssessStatus { kAssessed, kPartly, kNotAssessed };
std::string_view AssessStatusName(AssessStatus s);  // "assessed", "partly", "not assessed"

// One line of the checklist.
struct ChecklistItem {
  ChecklistSection section = ChecklistSection::kBaseline;
  std::string title;  // "DataLoader and host gaps"
  AssessStatus status = AssessStatus::kNotAssessed;
  std::string detail;                 // what was looked at / what was found ("2 findings: ...")
  std::string missing;                // for partly / not assessed: the data that is missing
  std::string command;                // and the exact command that captures it
  std::vector<std::string> rule_ids;  // rules behind this item
};

// Why a rule emitted nothing or could not run: the checklist reads these.
struct RuleOutcome {
  std::string rule_id;
  AssessStatus status = AssessStatus::kAssessed;
  bool fired = false;
  std::string note;  // for not assessed: the missing data
};

struct Diagnosis {
  int64_t rank = -1;
  int64_t step_count = 0;
  DurationNs step_ns = 0;           // the per-step reference time (mean analysed step)
  DurationNs idle_ns_per_step = 0;  // GPU idle per step (mean over devices)
  bool steps_synthesized = false;   // no ProfilerStep: "step" is the whole trace
  // A profiler's summary report: step_ns is its total kernel time and idle is unknown.
  bool kernel_total_only = false;
  std::vector<Finding> findings;         // ranked by RankingKey (expected recoverable time)
  std::vector<RuleOutcome> outcomes;     // one per catalog rule, in catalog order
  std::vector<ChecklistItem> checklist;  // in ChecklistSection order
  std::vector<std::string> notes;        // caveats (data quality, synthesized steps, ...)
  // What the trace says of the job (training or inference, precision, optimizer, GPU), which
  // decides the fixes offered; job_known is false for reports made without a trace.
  JobFacts job;
  bool job_known = false;

  const Finding* Find(std::string_view id) const;
  // Highest severity among findings (kInfo when none).
  Severity MaxSeverity() const;
};

// Findings rank by expected recoverable time: recoverable x 1 / 0.75 / 0.5 for high /
// medium / low confidence, then recoverable, severity and id.
double RankingKey(const Finding& finding);
// Medium-or-above findings first, then by RankingKey, recoverable time, severity and id
// (deterministic).
void RankFindings(std::vector<Finding>& findings);

Diagnosis Diagnose(const Trace& trace, const TraceAnalysis& analysis,
                   const DiagnoseOptions& options = {});

}  // namespace gpuwhy
