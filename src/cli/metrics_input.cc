#include "cli/metrics_input.h"

#include <filesystem>

#include "diagnose/diagnose_signals.h"
#include "ingest/metrics/metric_log.h"

namespace gpuwhy {

bool IsMetricLogFile(const std::string& path) {
  return SniffMetricLogFile(path) != MetricLogFormat::kNone;
}

RankHeader SummarizeSeriesHeader(const MetricSeriesSet& set) {
  RankHeader h;
  h.path = set.path;
  for (int32_t index : set.DeviceIndices()) {
    ReportDevice d{index, "", kNoValue, true};
    if (const SeriesDevice* dev = set.Device(index)) d.name = dev->name;
    if (const MetricSeries* total = set.Find("gpu.mem_total_mib", index); total && !total->empty()) {
      d.memory_bytes = static_cast<int64_t>(total->Max()) << 20;
    }
    h.devices.push_back(std::move(d));
  }
  for (const SeriesIssue& issue : set.issues) {
    // A lost line is lost data; a metric gpuwhy does not map is only information.
    const char* severity = issue.id == "unmapped_metric" ? "info" : "data_loss";
    h.import_stats.push_back({issue.id, severity, issue.count, issue.detail});
  }
  return h;
}

StatusOr<RankReport> ReportMetricLog(const std::string& path, const DiagnoseOptions& options) {
  ASSIGN_OR_RETURN(MetricSeriesSet set, ImportMetricLog(path));
  RankReport report;
  report.header = SummarizeSeriesHeader(set);
  report.diagnosis = DiagnoseSignals(set, options);
  return report;
}

MetricLogInputs SplitMetricLogInputs(const std::vector<std::string>& inputs,
                                     const DiagnoseOptions& options, const CliContext& context) {
  MetricLogInputs out;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(input, ec) || !IsMetricLogFile(input)) {
      out.traces.push_back(input);
      continue;
    }
    StatusOr<RankReport> report = ReportMetricLog(input, options);
    if (report.ok()) {
      out.reports.push_back(std::move(*report));
      continue;
    }
    PrintError(context, report.status());
    out.failures.push_back({input, report.status().message()});
  }
  return out;
}

}  // namespace gpuwhy
