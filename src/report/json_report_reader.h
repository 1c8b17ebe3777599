// Reads a `gpuwhy analyze --format json` report (docs/report-schema.json) back into the
// RunSummary that `gpuwhy diff` compares: the reader beside its writer (json_report.cc).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "report/run_summary.h"

namespace gpuwhy {

// The first rank of the report at |path|; errors name the path and what is wrong.
StatusOr<RunSummary> ReadReportSummary(const std::string& path);
// The same from the report's text (|path| only names it in errors).
StatusOr<RunSummary> ParseReportSummary(std::string_view json, const std::string& path);

}  // namespace gpuwhy
