// `dcgmi dmon -e 1001,1002,1003,1004,1005 [-d MS]` text: a whitespace table under a header of
// field short names, reprinted from time to time, one row per entity and sample:
//   #Entity   GRACT   SMACT   SMOCC   TENSO   DRAMA
//   ID
//   GPU 0     0.953   0.812   0.401   0.350   0.200
//   GPU 1     N/A     N/A     N/A     N/A     N/A
// The rows carry no time: row n of an entity is placed at n x the interval (-d, default
// 1000 ms; 1 s assumed, times_synthesized). "N/A" is DCGM's blank: not sampled. Only GPU
// entities map to devices; others (GPU-I, GPU-CI, ...) are counted. Fields and scales are
// dcgm_fields.h's, shared with dcgm-exporter and the DCGM field CSV.
#include <map>

#include "base/text.h"
#include "ingest/metrics/dcgm_fields.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

using text::ParseInt;
using text::ParseNumber;
using text::SplitLines;
using text::SplitWords;
using text::Trim;

constexpr std::string_view kHeader = "#Entity";

bool IsHeader(std::string_view line) { return Trim(line).substr(0, kHeader.size()) == kHeader; }

// The header's field columns (after "#Entity"); null for names dcgm_fields.h does not know.
std::vector<const DcgmField*> ReadHeader(std::string_view line, size_t n, MetricSeriesSet& set) {
  std::vector<std::string_view> words = SplitWords(line);
  std::vector<const DcgmField*> fields;
  for (size_t i = 1; i < words.size(); ++i) {
    const DcgmField* f = FindDcgmFieldByShortName(words[i]);
    if (f == nullptr) {
      set.problems.Add(DataProblem::kUnmappedMetric, fmt::format("line {}: {}", n, words[i]));
    }
    fields.push_back(f);
  }
  return fields;
}

struct DmonReader {
  MetricSeriesSet& set;
  std::map<int32_t, int64_t> rows_seen;  // device -> samples so far

  void ReadRow(const std::vector<const DcgmField*>& fields, std::string_view line, size_t n) {
    std::vector<std::string_view> words = SplitWords(line);
    // The entity is two words ("GPU 0"), then one value per field.
    if (words.size() != fields.size() + 2) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("line {}: expected an entity and {} values, got {} words", n,
                                   fields.size(), words.size()));
      return;
    }
    std::optional<int64_t> id = ParseInt(words[1]);
    if (!id || *id < 0 || *id > INT32_MAX) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("line {}: entity id '{}' is not a number", n, words[1]));
      return;
    }
    if (words[0] != "GPU") {
      set.problems.Add(DataProblem::kUnmappedMetric,
                       fmt::format("line {}: entity {} {} is not a whole GPU", n, words[0], *id));
      return;
    }
    std::vector<std::pair<const DcgmField*, double>> values;
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string_view cell = words[i + 2];
      if (fields[i] == nullptr || cell == "N/A") continue;
      std::optional<double> v = ParseNumber(cell);
      if (!v) {
        set.problems.Add(
            DataProblem::kUnparsedLine,
            fmt::format("line {}: {} value '{}' is not a number", n, fields[i]->short_name, cell));
        return;
      }
      values.emplace_back(fields[i], *v);
    }
    const auto device = static_cast<int32_t>(*id);
    const TimeNs t = rows_seen[device]++ * kNsPerSec;
    set.GetOrCreateDevice(device);
    for (const auto& [field, v] : values) {
      set.Add({std::string(field->metric), device, ""}, field->unit, t, v * field->scale);
    }
  }
};

}  // namespace

SniffResult SniffDcgmiDmon(std::string_view head) {
  for (std::string_view line : SplitLines(head)) {
    if (Trim(line).empty()) continue;
    return IsHeader(line) ? SniffResult::kYes : SniffResult::kNo;
  }
  return SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseDcgmiDmon(std::string_view text, std::string_view name) {
  MetricSeriesSet set;
  set.source = "dcgmi dmon";
  set.path = std::string(name);
  set.times_synthesized = true;
  set.nominal_interval_ns = kNsPerSec;
  DmonReader reader{set, {}};
  std::optional<std::vector<const DcgmField*>> fields;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (line.empty() || line == "ID") continue;  // "ID": the header's second line
    if (IsHeader(line)) {
      fields = ReadHeader(line, i + 1, set);
    } else if (!fields) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("line {}: data before the '#Entity ...' header", i + 1));
    } else {
      reader.ReadRow(*fields, line, i + 1);
    }
  }
  if (!fields) return InvalidArgument("{}: no '#Entity FIELD ...' header of dcgmi dmon", name);
  if (set.empty()) {
    return InvalidArgument("{}: no sample: no GPU row has a value in a known DCGM field", name);
  }
  return set;
}

}  // namespace gpuwhy
