// `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits] [-l N]`: one CSV row per
// GPU per sample. The header names the fields ("utilization.gpu [%]"); without it
// (noheader) the field list is taken from a pasted "$ nvidia-smi --query-gpu=..." line.
// Values may carry units ("631.95 W") and "[N/A]" / "[Not Supported]" mean not sampled.
#include <algorithm>
#include <map>

#include "base/number_cast.h"
#include "base/text.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/metric_log_formats.h"

namespace gpuwhy {
namespace {

using text::ParseNumber;
using text::SplitCsv;
using text::SplitLines;
using text::Trim;

struct FieldSpec {
  std::string_view field;  // query-gpu field name, without " [unit]"
  std::string_view metric;
  std::string_view unit;
};

// Aliases map to one metric: the first one present in a row wins.
constexpr FieldSpec kFields[] = {
    {"utilization.gpu", "gpu.util_pct", "%"},
    {"utilization.memory", "gpu.mem_util_pct", "%"},
    {"memory.used", "gpu.mem_used_mib", "MiB"},
    {"memory.total", "gpu.mem_total_mib", "MiB"},
    {"clocks.sm", "gpu.sm_clock_mhz", "MHz"},
    {"clocks.current.sm", "gpu.sm_clock_mhz", "MHz"},
    {"clocks.max.sm", "gpu.sm_clock_max_mhz", "MHz"},
    {"clocks.mem", "gpu.mem_clock_mhz", "MHz"},
    {"clocks.current.memory", "gpu.mem_clock_mhz", "MHz"},
    {"clocks.max.memory", "gpu.mem_clock_max_mhz", "MHz"},
    {"power.draw", "gpu.power_w", "W"},
    {"power.limit", "gpu.power_limit_w", "W"},
    {"enforced.power.limit", "gpu.power_limit_w", "W"},
    {"temperature.gpu", "gpu.temp_c", "C"},
    {"temperature.memory", "gpu.mem_temp_c", "C"},
    {"clocks_event_reasons.active", "gpu.throttle_reasons", "bitmask"},
    {"clocks_throttle_reasons.active", "gpu.throttle_reasons", "bitmask"},
    {"pcie.link.gen.current", "gpu.pcie_gen", "gen"},
    {"pcie.link.gen.gpucurrent", "gpu.pcie_gen", "gen"},
    {"pcie.link.gen.max", "gpu.pcie_gen_max", "gen"},
    {"pcie.link.width.current", "gpu.pcie_width", "lanes"},
    {"pcie.link.width.max", "gpu.pcie_width_max", "lanes"},
    {"persistence_mode", "gpu.persistence", "bool"},
    {"remapped_rows.pending", "gpu.remapped_rows_pending", "bool"},
    {"ecc.errors.uncorrected.volatile.total", "gpu.ecc_double_bit", "count"},
    {"ecc.errors.corrected.volatile.total", "gpu.ecc_single_bit", "count"},
    {"fan.speed", "gpu.fan_pct", "%"},
    {"utilization.encoder", "gpu.enc_pct", "%"},
    {"utilization.decoder", "gpu.dec_pct", "%"},
};

// Fields naming the device rather than sampling it.
enum class Identity { kNone, kIndex, kUuid, kBusId, kName, kTimestamp };

Identity IdentityOf(std::string_view field) {
  if (field == "index") return Identity::kIndex;
  if (field == "uuid") return Identity::kUuid;
  if (field == "pci.bus_id") return Identity::kBusId;
  if (field == "name") return Identity::kName;
  if (field == "timestamp") return Identity::kTimestamp;
  return Identity::kNone;
}

std::string FieldName(std::string_view header_cell) {
  std::string_view name = Trim(header_cell);
  if (size_t bracket = name.find(" ["); bracket != std::string_view::npos) {
    name = name.substr(0, bracket);
  }
  return std::string(name);
}

// "Enabled"/"Yes" -> 1, "Disabled"/"No" -> 0, numbers (hex too) as numbers.
std::optional<double> ParseValue(std::string_view text) {
  if (text == "Enabled" || text == "Yes" || text == "Active") return 1.0;
  if (text == "Disabled" || text == "No" || text == "Not Active") return 0.0;
  return ParseNumber(text);
}

// "$ nvidia-smi --query-gpu=a,b,c --format=csv,noheader": the field list.
std::optional<std::vector<std::string>> FieldsFromCommand(std::string_view line) {
  size_t at = line.find("--query-gpu=");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + 12);
  rest = rest.substr(0, rest.find(' '));
  std::vector<std::string> fields;
  for (std::string& f : SplitCsv(rest)) fields.push_back(FieldName(f));
  return fields;
}

// A header cell is a field name; no value nvidia-smi prints looks like one.
bool IsHeaderRow(const std::vector<std::string>& cells) {
  for (const std::string& cell : cells) {
    std::string field = FieldName(cell);
    if (IdentityOf(field) != Identity::kNone) return true;
    for (const FieldSpec& spec : kFields) {
      if (spec.field == field) return true;
    }
  }
  return false;
}

std::optional<TimeNs> ParseTimestamp(std::string_view text) {
  // "2026/07/14 08:12:53.353"
  size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  return text::ParseDateTime(text.substr(0, space), Trim(text.substr(space + 1)));
}

}  // namespace

SniffResult SniffQueryGpuCsv(std::string_view head) {
  for (std::string_view line : SplitLines(head)) {
    if (line.find("--query-gpu=") != std::string_view::npos) return SniffResult::kYes;
  }
  // A CSV header without the command line: query-gpu field names.
  std::string_view first = head.substr(0, head.find('\n'));
  if (first.find(',') != std::string_view::npos &&
      (first.find("utilization.gpu") != std::string_view::npos ||
       first.find("timestamp") != std::string_view::npos ||
       first.find("memory.used") != std::string_view::npos)) {
    return SniffResult::kMaybe;
  }
  return SniffResult::kNo;
}

StatusOr<MetricSeriesSet> ParseQueryGpuCsv(std::string_view text, std::string_view name) {
  MetricSeriesSet set;
  set.source = "nvidia-smi --query-gpu";
  set.path = std::string(name);
  std::vector<std::string> fields;
  std::map<std::string, int64_t> rows_per_device;
  bool synthesized = false;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string_view line = Trim(lines[n]);
    if (line.empty()) continue;
    if (line[0] == '$' || line[0] == '#') {
      if (auto from_command = FieldsFromCommand(line); from_command && fields.empty()) {
        fields = std::move(*from_command);
      }
      continue;
    }
    std::vector<std::string> cells = SplitCsv(line);
    // The header repeats when several loops were appended to one file.
    if (IsHeaderRow(cells)) {
      fields.clear();
      for (const std::string& c : cells) fields.push_back(FieldName(c));
      continue;
    }
    const std::string where = fmt::format("line {}", n + 1);
    if (fields.empty()) {
      return InvalidArgument(
          "{}: {}: CSV without a header; keep the header (--format=csv) or paste the "
          "'nvidia-smi --query-gpu=...' command line above the rows",
          name, where);
    }
    if (cells.size() != fields.size()) {
      set.problems.Add(DataProblem::kUnparsedLine, fmt::format("{}: expected {} fields, got {}",
                                                               where, fields.size(), cells.size()));
      continue;
    }
    int32_t device = -1;
    std::optional<TimeNs> t;
    SeriesDevice identity;
    for (size_t c = 0; c < cells.size(); ++c) {
      switch (IdentityOf(fields[c])) {
        case Identity::kIndex:
          if (auto v = ParseNumber(cells[c])) device = ToInteger<int32_t>(*v).value_or(-1);
          break;
        case Identity::kUuid: identity.uuid = cells[c]; break;
        case Identity::kBusId: identity.pci_bus_id = cells[c]; break;
        case Identity::kName: identity.name = cells[c]; break;
        case Identity::kTimestamp: t = ParseTimestamp(cells[c]); break;
        case Identity::kNone: break;
      }
    }
    // Without an index column the GPUs come in index order within a sample; the UUID or
    // bus id tells them apart.
    std::string device_key = identity.uuid + identity.pci_bus_id;
    if (device < 0) {
      auto it = std::find_if(set.devices.begin(), set.devices.end(), [&](const SeriesDevice& d) {
        return !device_key.empty() && d.uuid + d.pci_bus_id == device_key;
      });
      device = it != set.devices.end() ? it->index : static_cast<int32_t>(set.devices.size());
    }
    if (!t) {
      synthesized = true;
      t = rows_per_device[std::to_string(device)]++ * kNsPerSec;
    }
    SeriesDevice& d = set.GetOrCreateDevice(device);
    if (!identity.name.empty()) d.name = identity.name;
    if (!identity.uuid.empty()) d.uuid = identity.uuid;
    if (!identity.pci_bus_id.empty()) d.pci_bus_id = identity.pci_bus_id;
    std::vector<std::string_view> filled;  // metrics set by an earlier alias in this row
    for (const FieldSpec& spec : kFields) {
      if (std::find(filled.begin(), filled.end(), spec.metric) != filled.end()) continue;
      auto col = std::find(fields.begin(), fields.end(), spec.field);
      if (col == fields.end()) continue;
      std::optional<double> v = ParseValue(cells[static_cast<size_t>(col - fields.begin())]);
      if (!v) continue;
      set.Add({std::string(spec.metric), device, ""}, spec.unit, *t, *v);
      filled.push_back(spec.metric);
    }
  }
  set.times_synthesized = synthesized;
  if (fields.empty()) return InvalidArgument("{}: no CSV header with query-gpu fields", name);
  if (set.devices.empty()) return InvalidArgument("{}: no GPU row after the header", name);
  return set;
}

}  // namespace gpuwhy
