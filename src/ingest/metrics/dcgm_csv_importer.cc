// A CSV of DCGM fields under their `dcgmi dmon` short names, one row per entity and sample,
// as scripts sampling DCGM write it (MIGProfiler's dcgm.csv):
//   EntityId,GRACT,FBUSD,TimeStamp
//   0,0.000,1520,1661756603
// EntityId is read as the GPU index: the file does not say which entity group an id is of.
// TimeStamp is Unix time in s, ms or us, told apart by size (DCGM's own clock is us); without
// it row n of an entity is placed at n x 1 s. "N/A" (DCGM's blank), "-" and empty cells are
// not sampled. The fields and their scales are dcgm_fields.h's, shared with dcgm-exporter.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "base/text.h"
#include "ingest/metrics/dcgm_fields.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

using text::ParseNumber;
using text::SplitCsv;
using text::SplitLines;
using text::Trim;

constexpr std::string_view kEntityColumn = "EntityId";
constexpr std::string_view kTimeColumn = "TimeStamp";

bool IsHeader(const std::vector<std::string>& cells) {
  return std::find(cells.begin(), cells.end(), kEntityColumn) != cells.end();
}

struct Columns {
  size_t entity = 0;
  std::optional<size_t> time;
  std::vector<const DcgmField*> fields;  // per column; null for EntityId, TimeStamp, unmapped
};

Columns ReadHeader(const std::vector<std::string>& cells, size_t line, MetricSeriesSet& set) {
  Columns c;
  c.fields.assign(cells.size(), nullptr);
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i] == kEntityColumn) {
      c.entity = i;
    } else if (cells[i] == kTimeColumn) {
      c.time = i;
    } else if ((c.fields[i] = FindDcgmFieldByShortName(cells[i])) == nullptr) {
      set.problems.Add(DataProblem::kUnmappedMetric, fmt::format("line {}: {}", line, cells[i]));
    }
  }
  return c;
}

std::optional<int64_t> ParseInteger(std::string_view cell) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || end != cell.data() + cell.size()) return std::nullopt;
  return v;
}

// Seconds below 1e11 (the year 5138), milliseconds below 1e14, else microseconds. Whole
// numbers are scaled exactly: a double holds epoch nanoseconds only to ~256 ns. A time past
// what int64 nanoseconds hold (the year 2262) is no time.
std::optional<TimeNs> ParseUnixTime(std::string_view cell) {
  if (std::optional<int64_t> whole = ParseInteger(cell); whole && *whole >= 0) {
    const int64_t scale = *whole < 100'000'000'000       ? kNsPerSec
                          : *whole < 100'000'000'000'000 ? kNsPerMs
                                                         : 1000;
    if (*whole > std::numeric_limits<TimeNs>::max() / scale) return std::nullopt;
    return *whole * scale;
  }
  std::optional<double> v = ParseNumber(cell);
  if (!v || *v < 0 || *v >= 1e17) return std::nullopt;
  const double scale = *v < 1e11 ? 1e9 : *v < 1e14 ? 1e6 : 1e3;
  if (*v * scale >= 9.2e18) return std::nullopt;
  return static_cast<TimeNs>(std::llround(*v * scale));
}

bool IsBlank(std::string_view cell) { return cell.empty() || cell == "N/A" || cell == "-"; }

struct DcgmCsvReader {
  MetricSeriesSet& set;
  std::map<int32_t, TimeNs> last_time;   // entity -> time of its previous row
  std::map<int32_t, int64_t> rows_seen;  // entity -> rows so far (no TimeStamp column)

  // Adds one data row's samples; an issue instead when any cell of it cannot be read.
  void ReadRow(const Columns& c, const std::vector<std::string>& cells, size_t line) {
    const std::string where = fmt::format("line {}", line);
    if (cells.size() != c.fields.size()) {
      set.problems.Add(
          DataProblem::kUnparsedLine,
          fmt::format("{}: expected {} fields, got {}", where, c.fields.size(), cells.size()));
      return;
    }
    std::optional<int64_t> entity = ParseInteger(cells[c.entity]);
    if (!entity || *entity < 0 || *entity > INT32_MAX) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("{}: EntityId '{}' is not an id", where, cells[c.entity]));
      return;
    }
    const auto device = static_cast<int32_t>(*entity);
    std::vector<std::pair<const DcgmField*, double>> values;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (c.fields[i] == nullptr || IsBlank(cells[i])) continue;
      std::optional<double> v = ParseNumber(cells[i]);
      if (!v) {
        set.problems.Add(DataProblem::kUnparsedLine,
                         fmt::format("{}: {} value '{}' is not a number", where,
                                     c.fields[i]->short_name, cells[i]));
        return;
      }
      values.emplace_back(c.fields[i], *v);
    }
    std::optional<TimeNs> t = TimeOf(c, cells, device, where);
    if (!t) return;
    set.GetOrCreateDevice(device);
    for (const auto& [field, v] : values) {
      set.Add({std::string(field->metric), device, ""}, field->unit, *t, v * field->scale);
    }
  }

  // A time before the entity's previous row is refused: a cut last line ("...,16617") or
  // rows out of order, either way not a sample to place on the timeline.
  std::optional<TimeNs> TimeOf(const Columns& c, const std::vector<std::string>& cells,
                               int32_t device, const std::string& where) {
    if (!c.time) {
      set.times_synthesized = true;
      return rows_seen[device]++ * kNsPerSec;
    }
    std::optional<TimeNs> t = ParseUnixTime(cells[*c.time]);
    if (!t) {
      set.problems.Add(DataProblem::kBadTimestamp,
                       fmt::format("{}: TimeStamp '{}' is not a Unix time", where, cells[*c.time]));
      return std::nullopt;
    }
    auto last = last_time.find(device);
    if (last != last_time.end() && *t < last->second) {
      set.problems.Add(DataProblem::kBadTimestamp,
                       fmt::format("{}: TimeStamp {} is before entity {}'s previous row", where,
                                   cells[*c.time], device));
      return std::nullopt;
    }
    last_time[device] = *t;
    return t;
  }
};

}  // namespace

SniffResult SniffDcgmCsv(std::string_view head) {
  for (std::string_view line : SplitLines(head)) {
    if (Trim(line).empty()) continue;
    return IsHeader(SplitCsv(line)) ? SniffResult::kYes : SniffResult::kNo;
  }
  return SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseDcgmCsv(std::string_view text, std::string_view name) {
  MetricSeriesSet set;
  set.source = "DCGM field CSV";
  set.path = std::string(name);
  DcgmCsvReader reader{set, {}, {}};
  std::optional<Columns> columns;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    if (Trim(lines[n]).empty()) continue;
    std::vector<std::string> cells = SplitCsv(lines[n]);
    if (IsHeader(cells)) {  // again where several runs were appended to one file
      columns = ReadHeader(cells, n + 1, set);
    } else if (!columns) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       fmt::format("line {}: data before the 'EntityId,...' header", n + 1));
    } else {
      reader.ReadRow(*columns, cells, n + 1);
    }
  }
  if (!columns) return InvalidArgument("{}: no 'EntityId,FIELD,...' CSV header", name);
  if (set.empty()) {
    return InvalidArgument("{}: no sample: no row has a value in a known DCGM field column", name);
  }
  if (set.times_synthesized) set.nominal_interval_ns = kNsPerSec;
  return set;
}

}  // namespace gpuwhy
