// Reads a `gpuwhy analyze --format json` report (docs/report-schema.json) back into the
// RankSummary that `gpuwhy diff` compares: the reader beside its writer (json_report.cc).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "ranks/rank_summary.h"

namespace gpuwhy {

// The first rank of the report at |path| (ranks_in_input: how many it holds); errors name the
// path and what is wrong. The summary holds what the report states of it: the rank, the
// rank-wide metrics, each step's number and breakdown (its start and end stay 0: the report's
// spans are the analysed extents, not the host spans a RankStepTiming holds), the findings and
// the top kernels as kernel_stats (kernel_stats_complete false). Milliseconds are rounded back
// to the nanoseconds they were written from. No collectives and no computation-kernel totals.
StatusOr<RankSummary> ReadReportSummary(const std::string& path);
// The same from the report's text (|path| only names it in errors).
StatusOr<RankSummary> ParseReportSummary(std::string_view json, const std::string& path);

}  // namespace gpuwhy
