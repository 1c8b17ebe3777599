// Renderers of the cross-rank view (`gpuwhy analyze` with two ranks or more): the job-wide
// findings, the per-rank table with its spread, the clock alignment, the collectives matched
// across ranks and the stragglers. Pure functions of CrossRankReport.
#pragma once

#include <string>

#include "diagnose/diagnose.h"
#include "ranks/cross_rank.h"
#include "report/report.h"

namespace gpuwhy {

std::string RenderCrossRankText(const CrossRankReport& report, const TextReportOptions& options);
std::string RenderCrossRankMarkdown(const CrossRankReport& report,
                                    const TextReportOptions& options);
// The "cross_rank" object of the JSON report (docs/report-schema.json $defs/cross_rank).
void WriteCrossRankJson(JsonWriter& w, const CrossRankReport& report, size_t top_n);

}  // namespace gpuwhy
