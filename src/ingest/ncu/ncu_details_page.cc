// The details page: one record per metric (or per rule result, which has no metric name and is
// not a metric), grouped by the launch's ID.
#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "ingest/ncu/ncu_pages.h"
#include "ingest/ncu/ncu_values.h"

namespace gpuwhy {
namespace {

// The sections ncu ships (its `sections/` folder, 2019.x to 2024.x) and the one that holds
// `--metrics` given on the command line. Metrics of any other section are kept but counted as
// unmapped_metric: a custom section gpuwhy's rules do not know the meaning of.
constexpr std::array<std::string_view, 22> kKnownSections = {
    "GPU Speed Of Light Throughput",
    "GPU Speed Of Light",
    "GPU Speed Of Light Roofline Chart",
    "GPU Speed Of Light Hierarchical Roofline Chart",
    "Launch Statistics",
    "Occupancy",
    "Compute Workload Analysis",
    "Memory Workload Analysis",
    "Memory Workload Analysis Chart",
    "Memory Workload Analysis Tables",
    "Scheduler Statistics",
    "Warp State Statistics",
    "Instruction Statistics",
    "Source Counters",
    "NVLink",
    "NVLink Tables",
    "NVLink Topology",
    "NUMA Affinity",
    "PM Sampling",
    "GPU and Memory Workload Distribution",
    "Command line profiler metrics",
    "Section",  // "Section Name" cells of exports that name no section
};

bool IsKnownSection(std::string_view section) {
  for (std::string_view known : kKnownSections) {
    if (section == known) return true;
  }
  return false;
}

const std::string& Cell(const CsvRecord& record, int column) {
  static const std::string kEmpty;
  return column >= 0 && static_cast<size_t>(column) < record.fields.size() ? record.fields[column]
                                                                           : kEmpty;
}

int NeededColumns(const NcuColumns& c) {
  return 1 + std::max({c.id, c.kernel_name, c.metric_name, c.metric_value, c.metric_unit});
}

}  // namespace

void ReadNcuDetailsPage(CsvRecordReader& reader, const NcuColumns& columns, std::string_view name,
                        KernelProfile& profile) {
  std::unordered_map<int64_t, size_t> by_id;
  const size_t needed = static_cast<size_t>(NeededColumns(columns));
  CsvRecord record;
  while (reader.Next(record)) {
    const std::string where = fmt::format("{}: line {}", name, record.line);
    if (record.unterminated) {
      profile.problems.Add(DataProblem::kTruncated, where + ": ends inside a quoted field");
      continue;
    }
    if (record.fields.size() < needed) {
      profile.problems.Add(DataProblem::kRowCutShort,
                           fmt::format("{}: {} of {} cells", where, record.fields.size(), needed));
      continue;
    }
    const int64_t id = ParseLaunchDims(Cell(record, columns.id));  // a plain count
    if (id < 0 || Cell(record, columns.id).starts_with("(")) {
      profile.problems.Add(DataProblem::kUnparsedLine, where + ": ID is not a number");
      continue;
    }
    const std::string& metric_name = Cell(record, columns.metric_name);
    if (metric_name.empty()) {
      // A rule's result, not a measurement: kept beside the kernel's metrics as
      // "rule: NAME" (unit: its type, text: what it found, value: its estimated speedup %),
      // not counted as a metric value.
      const std::string& rule = Cell(record, columns.rule_name);
      auto kernel = by_id.find(id);
      if (rule.empty() || kernel == by_id.end()) continue;
      KernelMetric result{Cell(record, columns.section),
                          "rule: " + rule,
                          Cell(record, columns.rule_type),
                          Cell(record, columns.rule_description),
                          {}};
      std::optional<double> speedup = ParseNcuNumber(Cell(record, columns.estimated_speedup));
      if (speedup && std::isfinite(*speedup)) result.value = speedup;
      profile.kernels[kernel->second].metrics.push_back(std::move(result));
      continue;
    }
    auto [slot, added] = by_id.try_emplace(id, profile.kernels.size());
    if (added) {
      ProfiledKernel& kernel = profile.kernels.emplace_back();
      kernel.id = id;
      kernel.pid = ParseLaunchDims(Cell(record, columns.pid));
      kernel.name = Cell(record, columns.kernel_name);
      kernel.device = Cell(record, columns.device);
      kernel.grid_blocks = ParseLaunchDims(Cell(record, columns.grid_size));
      kernel.block_threads = ParseLaunchDims(Cell(record, columns.block_size));
    }
    const std::string& section = Cell(record, columns.section);
    if (!section.empty() && !IsKnownSection(section)) {
      profile.problems.Add(DataProblem::kUnmappedMetric,
                           fmt::format("{}: section \"{}\" (kept)", where, section));
    }
    profile.kernels[slot->second].metrics.push_back(
        MakeNcuMetric(section, metric_name, Cell(record, columns.metric_unit),
                      Cell(record, columns.metric_value), where, profile.problems));
    profile.metric_count++;
  }
}

}  // namespace gpuwhy
