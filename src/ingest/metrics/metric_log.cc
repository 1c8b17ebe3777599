#include "ingest/metrics/metric_log.h"

#include <cctype>
#include <memory>

#include "base/file_input.h"
#include "ingest/metrics/recording_reader.h"
#include "ingest/metrics/text_table.h"

namespace gpuwhy {

std::string_view MetricLogFormatName(MetricLogFormat format) {
  switch (format) {
    case MetricLogFormat::kNone: return "none";
    case MetricLogFormat::kDmon: return "nvidia-smi dmon";
    case MetricLogFormat::kPmon: return "nvidia-smi pmon";
    case MetricLogFormat::kQueryGpuCsv: return "nvidia-smi --query-gpu csv";
    case MetricLogFormat::kDcgmPrometheus: return "dcgm-exporter";
    case MetricLogFormat::kRecording: return "gpuwhy recording";
  }
  return "none";
}

MetricLogFormat SniffMetricLog(std::string_view head) {
  if (head.substr(0, kRecordingMagic.size()) == kRecordingMagic) {
    return MetricLogFormat::kRecording;
  }
  // A JSON trace starts with '{' or '[' (after whitespace): never a metric log.
  for (char c : head) {
    if (c == '{' || c == '[') return MetricLogFormat::kNone;
    if (!std::isspace(static_cast<unsigned char>(c))) break;
  }
  for (std::string_view line : metrics_text::SplitLines(head)) {
    std::vector<std::string_view> f = metrics_text::SplitWhitespace(line);
    if (f.empty()) continue;
    if (line.find("--query-gpu=") != std::string_view::npos) return MetricLogFormat::kQueryGpuCsv;
    if (f[0].rfind("DCGM_FI_", 0) == 0 || line.find(" DCGM_FI_") != std::string_view::npos) {
      return MetricLogFormat::kDcgmPrometheus;
    }
    if (f[0][0] != '#' || f.size() < 2) continue;
    bool gpu = false, pid = false;
    for (std::string_view name : f) {
      gpu = gpu || name == "gpu" || name == "#gpu";
      pid = pid || name == "pid";
    }
    if (gpu) return pid ? MetricLogFormat::kPmon : MetricLogFormat::kDmon;
  }
  // A CSV header without the command line: query-gpu field names.
  std::string_view first = head.substr(0, head.find('\n'));
  if (first.find(',') != std::string_view::npos &&
      (first.find("utilization.gpu") != std::string_view::npos ||
       first.find("timestamp") != std::string_view::npos ||
       first.find("memory.used") != std::string_view::npos)) {
    return MetricLogFormat::kQueryGpuCsv;
  }
  return MetricLogFormat::kNone;
}

MetricLogFormat SniffMetricLogFile(const std::string& path) {
  // Through the byte source: a recording is gzip-compressed.
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return MetricLogFormat::kNone;
  std::string head(16 << 10, '\0');
  size_t filled = 0;
  while (filled < head.size()) {
    StatusOr<size_t> n = (*source)->Read(head.data() + filled, head.size() - filled);
    if (!n.ok() || *n == 0) break;
    filled += *n;
  }
  head.resize(filled);
  return SniffMetricLog(head);
}

StatusOr<MetricSeriesSet> ParseMetricLogText(std::string_view text, std::string_view name) {
  switch (SniffMetricLog(text.substr(0, 16 << 10))) {
    case MetricLogFormat::kDmon: return ParseDmonText(text, name);
    case MetricLogFormat::kPmon: return ParsePmonText(text, name);
    case MetricLogFormat::kQueryGpuCsv: return ParseQueryGpuCsv(text, name);
    case MetricLogFormat::kDcgmPrometheus: return ParseDcgmPrometheus(text, name);
    case MetricLogFormat::kRecording: return ParseRecording(text, name);
    case MetricLogFormat::kNone: break;
  }
  return InvalidArgument(
      "{}: not a metric log (expected nvidia-smi dmon/pmon, --query-gpu CSV, dcgm-exporter "
      "text or a gpuwhy recording)",
      name);
}

StatusOr<MetricSeriesSet> ImportMetricLog(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseMetricLogText(text, path);
}

}  // namespace gpuwhy
