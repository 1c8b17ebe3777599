// Front door for metric logs: `nvidia-smi dmon` / `pmon` output, `nvidia-smi --query-gpu
// --format=csv` loops, dcgm-exporter Prometheus text, CSVs of DCGM fields and gpuwhy
// recordings, recognised by content (never by name) and read into one MetricSeriesSet
// (docs/metric-series.md). The formats are one table: metric_log_formats.h.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/metric_series.h"

namespace gpuwhy {

enum class MetricLogFormat {
  kNone,
  kDmon,
  kPmon,
  kQueryGpuCsv,
  kDcgmPrometheus,
  kDcgmCsv,
  kDcgmiDmon,
  kRecording,
};
std::string_view MetricLogFormatName(MetricLogFormat format);

// What the first bytes of a file say it is; kNone for anything else (e.g. a trace).
MetricLogFormat SniffMetricLog(std::string_view head);
// Reads the head of |path| and sniffs it; kNone when unreadable.
MetricLogFormat SniffMetricLogFile(const std::string& path);

// Imports a metric log of any known format. Lines that cannot be read are counted as data
// problems (unparsed_line, with the first lines' numbers) and skipped; a file with no usable
// sample at all is an error "PATH: why".
StatusOr<MetricSeriesSet> ImportMetricLog(const std::string& path);
StatusOr<MetricSeriesSet> ParseMetricLogText(std::string_view text, std::string_view name);

// Puts every series' samples in time order (stable), counting the samples found earlier than
// the one before them as bad_timestamp: a series' times never decrease (model/metric_series.h),
// whatever the log's clock did. ParseMetricLogText calls it; the per-format parsers do not.
void OrderSamplesByTime(MetricSeriesSet& set);

// One per format (exposed for tests). |name| prefixes error messages.
StatusOr<MetricSeriesSet> ParseDmonText(std::string_view text, std::string_view name);
StatusOr<MetricSeriesSet> ParsePmonText(std::string_view text, std::string_view name);
StatusOr<MetricSeriesSet> ParseQueryGpuCsv(std::string_view text, std::string_view name);
StatusOr<MetricSeriesSet> ParseDcgmPrometheus(std::string_view text, std::string_view name);
StatusOr<MetricSeriesSet> ParseDcgmCsv(std::string_view text, std::string_view name);
StatusOr<MetricSeriesSet> ParseDcgmiDmon(std::string_view text, std::string_view name);

}  // namespace gpuwhy
