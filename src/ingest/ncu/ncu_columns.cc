// The header's column map, the metric builder and the launch shape, shared by both pages.
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "ingest/ncu/ncu_pages.h"
#include "ingest/ncu/ncu_values.h"

namespace gpuwhy {
namespace {

// Columns of either page that describe the launch rather than measure it.
constexpr std::array<std::string_view, 20> kIdentityColumns = {
    "ID",           "Process ID", "Process Name", "Host Name",        "Kernel Name",
    "Kernel Time",  "Context",    "Stream",       "Block Size",       "Grid Size",
    "Device",       "CC",         "Section Name", "Metric Name",      "Metric Unit",
    "Metric Value", "Rule Name",  "Rule Type",    "Rule Description", "Estimated Speedup"};

bool IsIdentityColumn(std::string_view name) {
  if (name.starts_with("Estimated Speedup")) return true;  // "Estimated Speedup Type" too
  for (std::string_view identity : kIdentityColumns) {
    if (name == identity) return true;
  }
  return false;
}

int64_t ParseCount(std::string_view text) {
  std::optional<double> value = ParseNcuNumber(text);
  if (!value || *value < 0 || *value > 9e15 ||
      *value != static_cast<double>(static_cast<int64_t>(*value))) {
    return -1;
  }
  return static_cast<int64_t>(*value);
}

}  // namespace

NcuColumns MapNcuColumns(const std::vector<std::string>& header, NcuLayout& layout) {
  NcuColumns columns;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& name = header[i];
    const int column = static_cast<int>(i);
    if (name == "ID" && columns.id < 0) columns.id = column;
    if (name == "Process ID") columns.pid = column;
    if (name == "Kernel Name") columns.kernel_name = column;
    if (name == "Block Size") columns.block_size = column;
    if (name == "Grid Size") columns.grid_size = column;
    if (name == "Device") columns.device = column;
    if (name == "Section Name") columns.section = column;
    if (name == "Metric Name") columns.metric_name = column;
    if (name == "Metric Unit") columns.metric_unit = column;
    if (name == "Metric Value") columns.metric_value = column;
    if (name == "Rule Name") columns.rule_name = column;
    if (name == "Rule Type") columns.rule_type = column;
    if (name == "Rule Description") columns.rule_description = column;
    if (name == "Estimated Speedup") columns.estimated_speedup = column;
    if (!IsIdentityColumn(name) && !name.empty()) columns.metric_columns.push_back(column);
  }
  const bool details = columns.metric_name >= 0 && columns.metric_value >= 0;
  layout = details ? NcuLayout::kDetails : NcuLayout::kRaw;
  if (details) columns.metric_columns.clear();
  return columns;
}

KernelMetric MakeNcuMetric(std::string section, std::string name, std::string unit,
                           std::string text, std::string_view where, DataProblems& problems) {
  KernelMetric metric{std::move(section), std::move(name), std::move(unit), std::move(text), {}};
  std::optional<double> value = ParseNcuNumber(metric.text);
  if (!value) return metric;
  std::optional<double> scale = NcuUnitScale(metric.unit);
  if (!scale) {
    problems.Add(DataProblem::kUnknownUnit,
                 fmt::format("{}: unit \"{}\" of {}", where, metric.unit, metric.name));
    scale = 1.0;
  }
  const double scaled = *value * *scale;
  if (!std::isfinite(scaled)) {
    problems.Add(DataProblem::kBadValue,
                 fmt::format("{}: {} {} overflows", where, metric.text, metric.unit));
    return metric;
  }
  metric.value = scaled;
  return metric;
}

int64_t ParseLaunchDims(std::string_view text) {
  if (!text.starts_with("(")) return ParseCount(text);
  if (!text.ends_with(")")) return -1;
  text = text.substr(1, text.size() - 2);
  int64_t product = 1;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    while (part.starts_with(" ")) part.remove_prefix(1);
    while (part.ends_with(" ")) part.remove_suffix(1);
    const int64_t dim = ParseCount(part);
    if (dim < 0 || (dim > 0 && product > int64_t{1} << 40)) return -1;
    product *= dim;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return product;
}

void FillLaunchFromMetrics(ProfiledKernel& kernel) {
  const auto count = [&](std::initializer_list<std::string_view> names) -> int64_t {
    std::optional<double> value = kernel.Value(names);
    if (!value || *value < 0 || *value > 9e15) return -1;
    return static_cast<int64_t>(*value);
  };
  if (kernel.grid_blocks < 0) kernel.grid_blocks = count({"Grid Size", "launch__grid_size"});
  if (kernel.block_threads < 0) {
    kernel.block_threads = count({"Block Size", "launch__block_size"});
  }
  if (kernel.device.empty()) {
    if (const KernelMetric* name = kernel.Find("device__attribute_display_name")) {
      kernel.device = name->text;
    }
  }
}

}  // namespace gpuwhy
