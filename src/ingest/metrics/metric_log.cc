#include "ingest/metrics/metric_log.h"

#include <cctype>
#include <memory>
#include <string>

#include "base/file_input.h"
#include "ingest/metrics/metric_log_formats.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {
namespace {

// How much of a file the sniffers see.
constexpr size_t kSniffBytes = 16 << 10;

// Most specific first: a pasted --query-gpu command line or DCGM_FI_ samples say more than a
// "# gpu" header, which says more than a CSV header of field names.
constexpr MetricLogFormatSpec kFormats[] = {
    {MetricLogFormat::kRecording, "gpuwhy recording", SniffRecording, ParseRecording},
    {MetricLogFormat::kQueryGpuCsv, "nvidia-smi --query-gpu csv", SniffQueryGpuCsv,
     ParseQueryGpuCsv},
    {MetricLogFormat::kDcgmPrometheus, "dcgm-exporter", SniffDcgmPrometheus, ParseDcgmPrometheus},
    {MetricLogFormat::kDmon, "nvidia-smi dmon", SniffDmon, ParseDmonText},
    {MetricLogFormat::kPmon, "nvidia-smi pmon", SniffPmon, ParsePmonText},
    {MetricLogFormat::kDcgmCsv, "DCGM field CSV", SniffDcgmCsv, ParseDcgmCsv},
};

const MetricLogFormatSpec* FindFormat(MetricLogFormat format) {
  for (const MetricLogFormatSpec& spec : kFormats) {
    if (spec.format == format) return &spec;
  }
  return nullptr;
}

// A JSON trace starts with '{' or '[' (after whitespace): never a metric log.
bool LooksLikeJson(std::string_view head) {
  for (char c : head) {
    if (c == '{' || c == '[') return true;
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return false;
}

}  // namespace

std::span<const MetricLogFormatSpec> MetricLogFormats() { return kFormats; }

std::string_view MetricLogFormatName(MetricLogFormat format) {
  const MetricLogFormatSpec* spec = FindFormat(format);
  return spec == nullptr ? "none" : spec->name;
}

MetricLogFormat SniffMetricLog(std::string_view head) {
  if (LooksLikeJson(head)) return MetricLogFormat::kNone;
  MetricLogFormat maybe = MetricLogFormat::kNone;
  for (const MetricLogFormatSpec& spec : kFormats) {
    SniffResult result = spec.sniff(head);
    if (result == SniffResult::kYes) return spec.format;
    if (result == SniffResult::kMaybe && maybe == MetricLogFormat::kNone) maybe = spec.format;
  }
  return maybe;
}

MetricLogFormat SniffMetricLogFile(const std::string& path) {
  // Through the byte source: a recording is gzip-compressed.
  StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return MetricLogFormat::kNone;
  std::string head(kSniffBytes, '\0');
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
  if (const MetricLogFormatSpec* spec = FindFormat(SniffMetricLog(text.substr(0, kSniffBytes)))) {
    return spec->parse(text, name);
  }
  std::string expected;
  for (const MetricLogFormatSpec& spec : kFormats) {
    expected += (expected.empty() ? "" : ", ") + std::string(spec.name);
  }
  return InvalidArgument("{}: not a metric log (expected {})", name, expected);
}

StatusOr<MetricSeriesSet> ImportMetricLog(const std::string& path) {
  // A recording cut short (gpuwhy killed while writing it) is a gzip stream without its end,
  // which its own reader reads up to the cut.
  if (SniffMetricLogFile(path) == MetricLogFormat::kRecording) return ReadRecordingFile(path);
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseMetricLogText(text, path);
}

}  // namespace gpuwhy
