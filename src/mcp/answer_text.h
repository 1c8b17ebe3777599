// The text an agent reads: findings first, each citing the report's ids so that the agent can
// quote them and look them up in `gpuwhy analyze --format json`:
//   "finding ID"            a finding (ranks[i].findings[].id, or cross_rank's)
//   "evidence METRIC = ..." an evidence line (findings[].evidence[].id)
//   "range KIND START..END ns" a time range (findings[].ranges[]: start_ns, end_ns)
// Every number comes from the Report; nothing here computes one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnose.h"
#include "mcp/report_cache.h"

namespace gpuwhy::mcp {

// Where a finding lives in a report: a rank (its index in Report::ranks) or the job.
struct FindingPlace {
  const Diagnosis* diagnosis = nullptr;
  const Finding* finding = nullptr;
  int rank_index = -1;  // -1: the job-wide (cross-rank) diagnosis
  TimeNs origin = 0;    // ranges print relative to it (the rank's trace start)
};

// "ranks[0] (rank 3) trace.json" or "job (cross-rank)".
std::string PlaceName(const Report& report, int rank_index);

// analyze and doctor: the inputs that failed, then per rank (and for the job) the verdict
// line and every finding, ranked, with its lead evidence, ranges and first fix; then what the
// checklist says is missing and the capture that would decide it; then the notes.
std::string RenderReportAnswer(const CachedReport& cached);

// finding: everything the report holds of one finding (all evidence, ranges, events, quoted
// log lines, fixes, why fixes were left out, how to verify) and the checklist items of its
// rule, with their captures.
std::string RenderFindingAnswer(const CachedReport& cached, const FindingPlace& place);

// One checklist item that a capture would complete, with the places whose checklist says so.
struct CaptureItem {
  const ChecklistItem* item = nullptr;
  std::vector<int> rank_indexes;
};
// The checklist items (each once, over the job and every rank) that are not fully assessed and
// name a capture; |finding_id| keeps those whose rules include it, |section| those of that
// checklist section ("kernels and sync"); empty: no filter.
std::vector<CaptureItem> CollectCaptures(const Report& report, std::string_view finding_id,
                                         std::string_view section);
// capture: the items (each once) with what is missing and the command that captures it.
std::string RenderCaptureAnswer(const CachedReport& cached, const std::vector<CaptureItem>& items);

// Every finding of |report| in answer order (the job's first, then each rank's).
std::vector<FindingPlace> AllFindings(const Report& report);

}  // namespace gpuwhy::mcp
