// `nvidia-smi --query-gpu=FIELD,… --format=csv`: a header of field names (with " [unit]"
// when units are printed) and one row per GPU. The fields gpuwhy reads are mapped below;
// the rest are ignored.
#include <fmt/format.h>

#include "base/number_cast.h"
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

using system::TextLine;

std::vector<std::string_view> SplitCsv(std::string_view s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    out.push_back(system::Trim(s.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return out;
}

std::string_view FieldName(std::string_view header) {
  size_t unit = header.find(" [");
  return system::Trim(header.substr(0, unit));
}

bool Usable(std::string_view v) { return !v.empty() && !v.starts_with("[") && v != "N/A"; }

void Set(GpuState& g, std::string_view field, std::string_view v) {
  if (!Usable(v)) return;
  auto num = [&] { return system::LeadingNumber(v); };
  auto small = [&]() -> std::optional<int> {
    if (auto n = num()) return ToInteger<int>(*n);  // out of range: unset, not a cast
    return std::nullopt;
  };
  if (field == "name")
    g.name = std::string(v);
  else if (field == "pci.bus_id")
    g.pci_bus_id = std::string(v);
  else if (field == "uuid")
    g.uuid = std::string(v);
  else if (field == "driver_version")
    g.driver_version = std::string(v);
  else if (field == "persistence_mode")
    g.persistence_mode = std::string(v);
  else if (field == "pstate")
    g.performance_state = std::string(v);
  else if (field == "compute_mode")
    g.compute_mode = std::string(v);
  else if (field == "mig.mode.current")
    g.mig_mode = std::string(v);
  else if (field == "temperature.gpu")
    g.temp_c = num();
  else if (field == "power.draw" || field == "power.draw.instant")
    g.power_w = num();
  else if (field == "power.limit" || field == "enforced.power.limit")
    g.power_limit_w = num();
  else if (field == "clocks.sm" || field == "clocks.current.sm")
    g.sm_clock_mhz = num();
  else if (field == "clocks.max.sm" || field == "clocks.max.sm")
    g.max_sm_clock_mhz = num();
  else if (field == "memory.used")
    g.memory_used_mib = num();
  else if (field == "memory.total")
    g.memory_total_mib = num();
  else if (field == "utilization.gpu")
    g.util_pct = num();
  else if (field == "pcie.link.gen.current" || field == "pcie.link.gen.gpucurrent") {
    if (!g.pcie_gen_current) g.pcie_gen_current = small();
  } else if (field == "pcie.link.gen.max") {
    g.pcie_gen_max = small();  // what GPU and system together reach
  } else if (field == "pcie.link.gen.gpumax") {
    g.pcie_gen_device_max = small();
    if (!g.pcie_gen_max) g.pcie_gen_max = g.pcie_gen_device_max;  // until .max is read
  } else if (field == "pcie.link.width.current")
    g.pcie_width_current = small();
  else if (field == "pcie.link.width.max")
    g.pcie_width_max = small();
  else if (field == "ecc.mode.current")
    g.ecc_mode = std::string(v);
  else if (field == "temperature.gpu.tlimit") {
    // degrees below the slowdown limit: not a threshold by itself
  } else if ((field.starts_with("clocks_throttle_reasons.") ||
              field.starts_with("clocks_event_reasons.")) &&
             v == "Active" && !field.ends_with(".active") && !field.ends_with("supported")) {
    g.active_clock_reasons.emplace_back(field.substr(field.find('.') + 1));
  }
}

}  // namespace

Status ParseNvidiaSmiCsv(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::vector<std::string_view> header;
  size_t rows = 0;
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (t.empty() || t.starts_with("$ ") || t.starts_with("#")) continue;
    std::vector<std::string_view> cells = SplitCsv(t);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.size() != header.size()) {
      facts.problems.Add(DataProblem::kUnparsedLine,
                         system::LineError(path, line.number,
                                           fmt::format("{} values for {} header fields",
                                                       cells.size(), header.size())));
      continue;
    }
    GpuState gpu;
    gpu.source = "nvidia-smi --query-gpu";
    gpu.file = std::string(path);
    for (size_t i = 0; i < cells.size(); ++i) Set(gpu, FieldName(header[i]), cells[i]);
    gpu.quotes.push_back({"row", "", system::Quote(path, line)});
    facts.gpus.push_back(std::move(gpu));
    ++rows;
  }
  if (header.empty()) return InvalidArgument("{}: no CSV header", path);
  return Status::Ok();
}

}  // namespace gpuwhy
