// Metric logs and recordings as `gpuwhy analyze` inputs, and the report of a run's series:
// a RankReport with no trace analysis whose diagnosis comes from the signals
// (diagnose/diagnose_signals.h), rendered by the same renderers as a trace.
#pragma once

#include <string>

#include <vector>

#include "base/status.h"
#include "cli/cli.h"
#include "diagnose/diagnose.h"
#include "model/metric_series.h"
#include "report/report.h"

namespace gpuwhy {

// True when |path| holds a metric log or recording (by content) rather than a trace.
bool IsMetricLogFile(const std::string& path);

// The header a report shows for series: the devices they name and the importer's issues.
RankHeader SummarizeSeriesHeader(const MetricSeriesSet& set);

// Imports a metric log or recording and diagnoses its signals.
StatusOr<RankReport> ReportMetricLog(const std::string& path, const DiagnoseOptions& options);

// `gpuwhy analyze` inputs split by content: metric-log files are imported and diagnosed here
// (errors printed and kept), everything else (traces, directories) is left in |traces|.
struct MetricLogInputs {
  std::vector<std::string> traces;
  std::vector<RankReport> reports;
  std::vector<ReportFailure> failures;
};
MetricLogInputs SplitMetricLogInputs(const std::vector<std::string>& inputs,
                                     const DiagnoseOptions& options, const CliContext& context);

}  // namespace gpuwhy
