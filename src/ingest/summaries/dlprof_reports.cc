// DLProf's CSV reports: dlprof_summary.csv (sections of "Key,Value" rows and small tables
// whose header row starts with a comma) and dlprof_kernel.csv (one row per kernel and op).
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "base/text.h"
#include "ingest/summaries/summary_parsers.h"

namespace gpuwhy {
namespace {

// Table rows of the summary ("All kernels,352000,450049,28") by their first cell, per section.
using Table = std::map<std::string, std::vector<std::string>>;

void ReadTotals(const std::map<std::string, std::string>& values,
                const std::map<std::string, Table>& tables, DlprofTotals& t) {
  auto value = [&](const char* key) -> std::string_view {
    auto it = values.find(key);
    return it == values.end() ? std::string_view() : std::string_view(it->second);
  };
  auto integer = [&](const char* key) { return SummaryInteger(value(key)).value_or(kNoValue); };
  auto pct = [&](const char* key) { return text::ParseNumber(value(key)); };
  t.gpu_name = std::string(value("GPU Name(s)"));
  t.framework = std::string(value("Framework"));
  t.iterations = integer("Total Iterations");
  t.wall_ns = integer("Wall Clock Time (ns)");
  t.gpu_utilization_pct = pct("GPU Utilization %");
  t.cpu_duration_pct = pct("CPU Duration %");
  t.dataloader_duration_pct = pct("Dataloader Duration %");
  // Cell |column| (1-based after the label) of row |row| of section |section|.
  auto cell = [&](const char* section, const char* row, size_t column) -> int64_t {
    auto s = tables.find(section);
    if (s == tables.end()) return kNoValue;
    auto r = s->second.find(row);
    if (r == s->second.end() || r->second.size() <= column) return kNoValue;
    return SummaryInteger(r->second[column]).value_or(kNoValue);
  };
  t.kernel_ns = cell("All Kernels", "All kernels", 1);
  t.kernel_count = cell("All Kernels", "All kernels", 3);
  t.tc_kernel_ns = cell("All Kernels", "Kernels using TC", 1);
  t.op_cpu_ns = cell("All Ops", "All ops", 2);
  t.tc_eligible_unused_ns = cell("All Ops", "Ops eligible for TC but not using", 1);
}

}  // namespace

StatusOr<ProfileSummary> ParseDlprofSummary(std::string_view content, const std::string& path) {
  ProfileSummary out;
  out.path = path;
  out.tool = SummaryTool::kDlprofSummary;
  std::map<std::string, std::string> values;
  std::map<std::string, Table> tables;
  std::string section;
  for (const text::NumberedLine& line : text::NumberLines(content)) {
    std::string_view t = text::Trim(line.text);
    if (t.empty()) continue;
    std::vector<std::string> cells = text::SplitCsv(t);
    if (cells.size() == 1) {
      section = cells[0];  // "System Config", "Summary Report", "All Kernels", ...
      continue;
    }
    if (cells[0].empty()) continue;  // a table's header row (",GPU Time (ns),...")
    if (cells.size() == 2) {
      values[cells[0]] = cells[1];
    } else {
      tables[section][cells[0]] = cells;
    }
  }
  if (values.find("Wall Clock Time (ns)") == values.end() &&
      values.find("Total Iterations") == values.end()) {
    return InvalidArgument("{}: no DLProf summary values (Wall Clock Time, Total Iterations)",
                           path);
  }
  DlprofTotals totals;
  ReadTotals(values, tables, totals);
  out.dlprof = std::move(totals);
  return out;
}

StatusOr<ProfileSummary> ParseDlprofKernels(std::string_view content, const std::string& path) {
  ProfileSummary out;
  out.path = path;
  out.tool = SummaryTool::kDlprofKernels;
  std::vector<std::string> header;
  int name = -1, op = -1, tc = -1, total = -1, avg = -1, max = -1;
  for (const text::NumberedLine& line : text::NumberLines(content)) {
    std::string_view t = text::Trim(line.text);
    if (t.empty() || t == "Kernel Report") continue;
    std::vector<std::string> cells = text::SplitCsv(t);
    if (header.empty()) {
      header = cells;
      for (size_t i = 0; i < header.size(); ++i) {
        const std::string& h = header[i];
        int at = static_cast<int>(i);
        if (h == "Kernel Name") name = at;
        if (h == "Op ID") op = at;
        if (h == "Uses TC") tc = at;
        if (h == "Total GPU Time (ns)") total = at;
        if (h == "Avg GPU Time (ns)") avg = at;
        if (h == "Max GPU Time (ns)") max = at;
      }
      if (name < 0 || total < 0)
        return InvalidArgument("{}: line {}: no 'Kernel Name' and 'Total GPU Time (ns)' columns",
                               path, line.number);
      continue;
    }
    auto at = [&](int i) -> std::string_view {
      return i >= 0 && static_cast<size_t>(i) < cells.size() ? std::string_view(cells[i])
                                                             : std::string_view();
    };
    std::optional<int64_t> total_ns = SummaryInteger(at(total));
    if (cells.size() != header.size() || !total_ns) {
      out.problems.Add(
          DataProblem::kUnparsedLine,
          fmt::format("{}: line {}: {}", path, line.number,
                      cells.size() != header.size() ? "not as many cells as the header"
                                                    : "Total GPU Time (ns) is not a number"));
      continue;
    }
    SummaryKernel k;
    k.name = std::string(at(name));
    k.range = std::string(at(op));
    k.total_ns = *total_ns;
    std::optional<double> mean = text::ParseNumber(at(avg));
    k.instances = mean && *mean > 0 ? std::max<int64_t>(1, std::llround(*total_ns / *mean)) : 1;
    k.max_ns = SummaryInteger(at(max)).value_or(kNoValue);
    if (tc >= 0) k.uses_tensor_cores = at(tc) == "yes";
    out.kernels.push_back(std::move(k));
  }
  if (header.empty()) return InvalidArgument("{}: no kernel table header", path);
  return out;
}

}  // namespace gpuwhy
