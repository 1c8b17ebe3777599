// dcgm-exporter's Prometheus text: `NAME{label="v",...} VALUE [TIMESTAMP_MS]` lines with
// `# HELP` / `# TYPE` comments. The `gpu` label is the device index; MIG instances add
// `GPU_I_ID` (the entity "gi N"). DCGM profiling fields (DCGM_FI_PROF_*) are ratios 0..1 and
// become percentages. Several scrapes appended to one file are told apart by a key repeating:
// without timestamps, scrape n is placed at n x 1 s.
#include <cmath>
#include <map>

#include "base/number_cast.h"
#include "base/text.h"
#include "ingest/metrics/dcgm_fields.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

using text::ParseNumber;
using text::SplitLines;
using text::Trim;

// Parses `{a="x",b="y"}` into a map; false when malformed.
bool ParseLabels(std::string_view text, std::map<std::string, std::string>& labels) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ',' || text[i] == ' ')) ++i;
    if (i == text.size()) break;
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos || eq + 1 >= text.size() || text[eq + 1] != '"') {
      return false;
    }
    std::string key(Trim(text.substr(i, eq - i)));
    std::string value;
    size_t j = eq + 2;
    for (; j < text.size() && text[j] != '"'; ++j) {
      if (text[j] == '\\' && j + 1 < text.size()) ++j;
      value += text[j];
    }
    if (j >= text.size()) return false;
    labels[key] = value;
    i = j + 1;
  }
  return true;
}

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
  std::optional<int64_t> timestamp_ms;
};

std::optional<Sample> ParseSampleLine(std::string_view line) {
  Sample s;
  size_t name_end = line.find_first_of("{ ");
  if (name_end == std::string_view::npos || name_end == 0) return std::nullopt;
  s.name = std::string(line.substr(0, name_end));
  std::string_view rest = line.substr(name_end);
  if (rest[0] == '{') {
    size_t close = rest.rfind('}');
    if (close == std::string_view::npos) return std::nullopt;
    if (!ParseLabels(rest.substr(1, close - 1), s.labels)) return std::nullopt;
    rest = rest.substr(close + 1);
  }
  std::vector<std::string_view> values = text::SplitWords(rest);
  if (values.empty()) return std::nullopt;
  std::optional<double> v = ParseNumber(values[0]);
  if (!v) return std::nullopt;
  s.value = *v;
  if (values.size() > 1) {
    // Milliseconds that fit in int64 nanoseconds; others are no timestamp.
    constexpr double kMaxMs = 9.2e12;
    if (auto ts = ParseNumber(values[1]); ts && std::fabs(*ts) < kMaxMs) {
      s.timestamp_ms = static_cast<int64_t>(*ts);
    }
  }
  return s;
}

}  // namespace

SniffResult SniffDcgmPrometheus(std::string_view head) {
  for (std::string_view line : SplitLines(head)) {
    std::vector<std::string_view> f = text::SplitWords(line);
    if (f.empty()) continue;
    if (f[0].rfind("DCGM_FI_", 0) == 0 || line.find(" DCGM_FI_") != std::string_view::npos) {
      return SniffResult::kYes;
    }
  }
  return SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseDcgmPrometheus(std::string_view text, std::string_view name) {
  MetricSeriesSet set;
  set.source = "dcgm-exporter";
  set.path = std::string(name);
  std::map<std::string, int64_t> scrapes;  // series key -> samples so far
  size_t dcgm_lines = 0;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string_view line = Trim(lines[n]);
    if (line.empty() || line[0] == '#' || line[0] == '$') continue;
    std::optional<Sample> sample = ParseSampleLine(line);
    if (!sample) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("line {}: not NAME{{labels}} VALUE", n + 1));
      continue;
    }
    if (sample->name.rfind("DCGM_", 0) != 0) continue;  // other exporters' metrics
    ++dcgm_lines;
    const DcgmField* field = FindDcgmField(sample->name);
    if (field == nullptr) {
      set.problems.Add(DataProblem::kUnmappedMetric,
                       fmt::format("line {}: {}", n + 1, sample->name));
      continue;
    }
    auto gpu = sample->labels.find("gpu");
    std::optional<double> index_value =
        gpu == sample->labels.end() ? std::nullopt : ParseNumber(gpu->second);
    std::optional<int32_t> index = index_value ? ToInteger<int32_t>(*index_value) : std::nullopt;
    if (!index) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("line {}: no gpu=\"N\" label", n + 1));
      continue;
    }
    const int32_t device = *index;
    std::string entity;
    if (auto gi = sample->labels.find("GPU_I_ID"); gi != sample->labels.end()) {
      entity = "gi " + gi->second;
    }
    SeriesDevice& d = set.GetOrCreateDevice(device);
    if (auto it = sample->labels.find("modelName"); it != sample->labels.end()) d.name = it->second;
    if (auto it = sample->labels.find("UUID"); it != sample->labels.end()) d.uuid = it->second;
    if (auto it = sample->labels.find("pci_bus_id"); it != sample->labels.end()) {
      d.pci_bus_id = it->second;
    }
    TimeNs t = 0;
    if (sample->timestamp_ms) {
      t = *sample->timestamp_ms * kNsPerMs;
    } else {
      t = scrapes[fmt::format("{}/{}/{}", sample->name, device, entity)]++ * kNsPerSec;
      set.times_synthesized = true;
    }
    MetricSeries& s = set.GetOrCreate({std::string(field->metric), device, entity}, field->unit);
    if (auto pod = sample->labels.find("pod"); pod != sample->labels.end()) s.label = pod->second;
    s.Add(t, sample->value * field->scale);
  }
  if (dcgm_lines == 0) return InvalidArgument("{}: no DCGM_FI_* sample line", name);
  return set;
}

}  // namespace gpuwhy
