#include "ingest/metrics/metric_log.h"

#include <algorithm>
#include <cctype>
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
    {MetricLogFormat::kDcgmiDmon, "dcgmi dmon", SniffDcgmiDmon, ParseDcgmiDmon},
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
  StatusOr<std::string> head = ReadFileHead(path, kSniffBytes);
  return head.ok() ? SniffMetricLog(*head) : MetricLogFormat::kNone;
}

void OrderSamplesByTime(MetricSeriesSet& set) {
  for (const auto& [key, series] : set.all()) {
    if (std::is_sorted(series.time.begin(), series.time.end())) continue;
    MetricSeries& s = set.GetOrCreate(key, series.unit);
    std::vector<size_t> order(s.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return s.time[a] < s.time[b]; });
    int64_t back = 0;
    for (size_t i = 1; i < s.size(); ++i) back += s.time[i] < s.time[i - 1];
    std::vector<TimeNs> time(order.size());
    std::vector<double> value(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      time[i] = s.time[order[i]];
      value[i] = s.value[order[i]];
    }
    s.time = std::move(time);
    s.value = std::move(value);
    set.problems.Add(DataProblem::kBadTimestamp,
                     fmt::format("{}: {} of device {}: {} samples earlier than the one before them "
                                 "(the log's clock went back); placed in time order",
                                 set.path, key.metric, key.device, back),
                     back);
  }
}

StatusOr<MetricSeriesSet> ParseMetricLogText(std::string_view text, std::string_view name) {
  if (const MetricLogFormatSpec* spec = FindFormat(SniffMetricLog(text.substr(0, kSniffBytes)))) {
    StatusOr<MetricSeriesSet> set = spec->parse(text, name);
    if (set.ok()) OrderSamplesByTime(*set);
    return set;
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
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, InputLimit::kMetricLog));
  return ParseMetricLogText(text, path);
}

}  // namespace gpuwhy
