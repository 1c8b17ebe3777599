// The metric-log formats, one row each: how a file's first bytes are recognised and how the
// whole text is read. Each format's sniffer sits beside its parser in that format's file;
// metric_log.cc holds the one table. Adding a format: its file (sniffer + parser), a value in
// MetricLogFormat, a row in the table, its test and its row in docs/metric-series.md.
#pragma once

#include <span>
#include <string_view>

#include "base/status.h"
#include "ingest/metrics/metric_log.h"
#include "model/metric_series.h"

namespace gpuwhy {

// kYes: the head is this format. kMaybe: it could be (e.g. a CSV header of field names); taken
// only when no format says kYes.
enum class SniffResult { kNo, kMaybe, kYes };

struct MetricLogFormatSpec {
  MetricLogFormat format;
  std::string_view name;  // as shown to users: "nvidia-smi dmon"
  SniffResult (*sniff)(std::string_view head);
  StatusOr<MetricSeriesSet> (*parse)(std::string_view text, std::string_view name);
};

// Every format, in the order their sniffers are asked (the first kYes wins).
std::span<const MetricLogFormatSpec> MetricLogFormats();

// One per format, beside its parser. |head| is the first 16 KiB of the (decompressed) text.
SniffResult SniffRecording(std::string_view head);       // recording_reader.cc
SniffResult SniffQueryGpuCsv(std::string_view head);     // query_gpu_importer.cc
SniffResult SniffDcgmPrometheus(std::string_view head);  // dcgm_importer.cc
SniffResult SniffDmon(std::string_view head);            // dmon_importer.cc
SniffResult SniffPmon(std::string_view head);            // dmon_importer.cc
SniffResult SniffDcgmCsv(std::string_view head);         // dcgm_csv_importer.cc
SniffResult SniffDcgmiDmon(std::string_view head);       // dcgmi_dmon_importer.cc

}  // namespace gpuwhy
