// `nvidia-smi dmon` (any -s selection, with or without -o D/T) and `nvidia-smi pmon`: a
// "# name name ..." header, a "# unit unit ..." line, then whitespace columns; the header
// repeats every few screens. "-" means not sampled. Without -o T the samples carry no time:
// sample n of a device (or process) is placed at n x 1 s (dmon's default -d 1).
#include <cctype>
#include <map>
#include <optional>
#include <span>

#include "base/number_cast.h"
#include "base/text.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

using text::ParseDateTime;
using text::ParseNumber;
using text::ParseTimeOfDay;
using text::SplitLines;
using text::SplitWords;

struct ColumnSpec {
  std::string_view column;  // dmon/pmon header name
  std::string_view metric;
  std::string_view unit;
};

// dmon columns (nvidia-smi dmon -s pucvmet and newer: gtemp, mtemp, jpg, ofa, ccpm).
constexpr ColumnSpec kDmonColumns[] = {
    {"pwr", "gpu.power_w", "W"},
    {"temp", "gpu.temp_c", "C"},
    {"gtemp", "gpu.temp_c", "C"},
    {"mtemp", "gpu.mem_temp_c", "C"},
    {"sm", "gpu.util_pct", "%"},
    {"mem", "gpu.mem_util_pct", "%"},
    {"enc", "gpu.enc_pct", "%"},
    {"dec", "gpu.dec_pct", "%"},
    {"jpg", "gpu.jpg_pct", "%"},
    {"ofa", "gpu.ofa_pct", "%"},
    {"mclk", "gpu.mem_clock_mhz", "MHz"},
    {"pclk", "gpu.sm_clock_mhz", "MHz"},
    {"pviol", "gpu.power_violation_pct", "%"},
    {"tviol", "gpu.thermal_violation", "bool"},
    {"fb", "gpu.mem_used_mib", "MiB"},
    {"bar1", "gpu.bar1_used_mib", "MiB"},
    {"ccpm", "gpu.cc_protected_mib", "MiB"},
    {"sbecc", "gpu.ecc_single_bit", "count"},
    {"dbecc", "gpu.ecc_double_bit", "count"},
    {"pci", "gpu.pcie_replays", "count"},
    {"rxpci", "gpu.pcie_rx_mbps", "MB/s"},
    {"txpci", "gpu.pcie_tx_mbps", "MB/s"},
};

// pmon columns: per process, the entity is "pid N".
constexpr ColumnSpec kPmonColumns[] = {
    {"sm", "gpu.process_sm_pct", "%"},    {"mem", "gpu.process_mem_pct", "%"},
    {"enc", "gpu.process_enc_pct", "%"},  {"dec", "gpu.process_dec_pct", "%"},
    {"jpg", "gpu.process_jpg_pct", "%"},  {"ofa", "gpu.process_ofa_pct", "%"},
    {"fb", "gpu.process_mem_mib", "MiB"}, {"ccpm", "gpu.process_cc_mib", "MiB"},
};

const ColumnSpec* FindColumn(std::span<const ColumnSpec> specs, std::string_view column) {
  for (const ColumnSpec& spec : specs) {
    if (spec.column == column) return &spec;
  }
  return nullptr;
}

struct Header {
  std::vector<std::string> names;  // lower-case, '#' removed
  int date = -1, time = -1, gpu = -1, pid = -1, type = -1, command = -1;
};

// "# gpu pwr ..." or "#Date Time gpu ...": the names line (the unit line follows it and
// starts with "# Idx" or "#YYYYMMDD").
std::optional<Header> ParseHeader(std::string_view line) {
  std::string text(line.substr(1));
  std::vector<std::string_view> fields = SplitWords(text);
  Header h;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string name(fields[i]);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "date") h.date = static_cast<int>(i);
    if (name == "time") h.time = static_cast<int>(i);
    if (name == "gpu") h.gpu = static_cast<int>(i);
    if (name == "pid") h.pid = static_cast<int>(i);
    if (name == "type") h.type = static_cast<int>(i);
    if (name == "command") h.command = static_cast<int>(i);
    h.names.push_back(std::move(name));
  }
  if (h.gpu < 0) return std::nullopt;
  return h;
}

enum class Table { kDmon, kPmon };

// The table the first "# ... gpu ..." comment line heads: pmon when it names a pid column.
std::optional<Table> SniffTable(std::string_view head) {
  for (std::string_view line : SplitLines(head)) {
    std::vector<std::string_view> f = SplitWords(line);
    if (f.size() < 2 || f[0][0] != '#') continue;
    bool gpu = false, pid = false;
    for (std::string_view name : f) {
      gpu = gpu || name == "gpu" || name == "#gpu";
      pid = pid || name == "pid";
    }
    if (gpu) return pid ? Table::kPmon : Table::kDmon;
  }
  return std::nullopt;
}

// Field |index| of a row, "" when the row has no such field: pmon rows may be one field short
// (a command name may be empty) and a header may lack a column, so no index is trusted.
std::string_view Field(const std::vector<std::string_view>& f, int index) {
  return index >= 0 && static_cast<size_t>(index) < f.size() ? f[static_cast<size_t>(index)]
                                                             : std::string_view();
}

// Time of one row: from Date/Time columns, else the per-key sample count x 1 s.
struct RowClock {
  std::map<std::string, int64_t> seen;  // key -> samples so far
  bool synthesized = false;

  std::optional<TimeNs> TimeOf(const Header& h, const std::vector<std::string_view>& f,
                               const std::string& key) {
    if (h.time >= 0 && h.date >= 0) return ParseDateTime(Field(f, h.date), Field(f, h.time));
    if (h.time >= 0) return ParseTimeOfDay(Field(f, h.time));
    synthesized = true;
    return seen[key]++ * kNsPerSec;
  }
};

StatusOr<MetricSeriesSet> ParseTable(std::string_view text, std::string_view name, Table table) {
  MetricSeriesSet set;
  set.source = table == Table::kDmon ? "nvidia-smi dmon" : "nvidia-smi pmon";
  set.path = std::string(name);
  std::optional<Header> header;
  RowClock clock;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string_view line = lines[n];
    std::vector<std::string_view> f = SplitWords(line);
    if (f.empty() || f[0][0] == '$') continue;  // blank, or the shell command pasted above
    if (line.find('#') != std::string_view::npos && f[0][0] == '#') {
      if (auto h = ParseHeader(text::Trim(line))) header = std::move(h);
      continue;  // the units line and other comments
    }
    const std::string where = fmt::format("line {}", n + 1);
    if (!header) {
      set.problems.Add(DataProblem::kUnparsedLine, where + ": data before the '# gpu ...' header");
      continue;
    }
    // pmon's last column (the command name) may hold spaces: allow more fields, not fewer.
    bool short_row = f.size() < header->names.size() - (header->command >= 0 ? 1 : 0);
    std::optional<double> gpu_value = short_row ? std::nullopt : ParseNumber(Field(f, header->gpu));
    std::optional<int32_t> gpu = gpu_value ? ToInteger<int32_t>(*gpu_value) : std::nullopt;
    if (!gpu) {
      set.problems.Add(DataProblem::kUnparsedLine,
                       where + ": expected " + std::to_string(header->names.size()) + " columns");
      continue;
    }
    const int32_t device = *gpu;
    std::string entity;
    std::string label;
    if (table == Table::kPmon) {
      std::optional<double> pid_value = ParseNumber(Field(f, header->pid));
      std::optional<int64_t> pid = pid_value ? ToInteger<int64_t>(*pid_value) : std::nullopt;
      if (!pid) continue;  // "-": no process on this GPU in this sample
      entity = fmt::format("pid {}", *pid);
      label = std::string(Field(f, header->command));
    }
    std::optional<TimeNs> t = clock.TimeOf(*header, f, std::to_string(device) + "/" + entity);
    if (!t) {
      set.problems.Add(DataProblem::kBadTimestamp, where + ": unreadable Date/Time");
      continue;
    }
    set.GetOrCreateDevice(device);
    if (table == Table::kPmon) {
      // Present even when every counter is "-" (a process holding memory only): 1 with a
      // compute context (type C or C+G), 0 for graphics only.
      MetricSeries& seen = set.GetOrCreate({"gpu.process_seen", device, entity}, "bool");
      seen.label = label;
      const bool compute = Field(f, header->type).find('C') != std::string_view::npos;
      seen.Add(*t, compute ? 1 : 0);
    }
    for (size_t c = 0; c < header->names.size() && c < f.size(); ++c) {
      const ColumnSpec* spec =
          FindColumn(table == Table::kDmon ? std::span<const ColumnSpec>(kDmonColumns)
                                           : std::span<const ColumnSpec>(kPmonColumns),
                     header->names[c]);
      if (spec == nullptr) continue;
      std::optional<double> v = ParseNumber(f[c]);
      if (!v) continue;
      MetricSeries& s = set.GetOrCreate({std::string(spec->metric), device, entity}, spec->unit);
      if (!label.empty()) s.label = label;
      s.Add(*t, *v);
    }
  }
  set.times_synthesized = clock.synthesized;
  set.nominal_interval_ns = kNsPerSec;
  if (!header) return InvalidArgument("{}: no '# gpu ...' header line", name);
  if (set.empty() && table == Table::kDmon) {
    return InvalidArgument("{}: no sample with a value", name);
  }
  return set;
}

}  // namespace

SniffResult SniffDmon(std::string_view head) {
  return SniffTable(head) == Table::kDmon ? SniffResult::kYes : SniffResult::kNo;
}

SniffResult SniffPmon(std::string_view head) {
  return SniffTable(head) == Table::kPmon ? SniffResult::kYes : SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseDmonText(std::string_view text, std::string_view name) {
  return ParseTable(text, name, Table::kDmon);
}

StatusOr<MetricSeriesSet> ParsePmonText(std::string_view text, std::string_view name) {
  return ParseTable(text, name, Table::kPmon);
}

}  // namespace gpuwhy
