// The raw page (`ncu --csv --page raw`): a header of identity columns and metric ids, a row of
// units under it (its ID cell is empty), then one row per launch.
#include <utility>

#include <fmt/format.h>

#include "ingest/ncu/ncu_pages.h"

namespace gpuwhy {
namespace {

bool IsUnitsRow(const CsvRecord& record, const NcuColumns& columns) {
  const size_t id = static_cast<size_t>(columns.id);
  return id < record.fields.size() && record.fields[id].empty();
}

const std::string& Cell(const std::vector<std::string>& fields, int column) {
  static const std::string kEmpty;
  return column >= 0 && static_cast<size_t>(column) < fields.size() ? fields[column] : kEmpty;
}

}  // namespace

void ReadNcuRawPage(CsvRecordReader& reader, const std::vector<std::string>& header,
                    const NcuColumns& columns, std::string_view name, KernelProfile& profile) {
  std::vector<std::string> units;
  CsvRecord record;
  bool first = true;
  while (reader.Next(record)) {
    const std::string where = fmt::format("{}: line {}", name, record.line);
    if (record.unterminated) {
      profile.problems.Add(DataProblem::kTruncated, where + ": ends inside a quoted field");
      continue;
    }
    if (std::exchange(first, false) && IsUnitsRow(record, columns)) {
      units = record.fields;
      continue;
    }
    const std::string& id_text = Cell(record.fields, columns.id);
    const int64_t id = id_text.starts_with("(") ? -1 : ParseLaunchDims(id_text);
    if (id < 0) {
      profile.problems.Add(DataProblem::kUnparsedLine, where + ": ID is not a number");
      continue;
    }
    if (record.fields.size() < header.size()) {
      // A cut row keeps the cells it has (the metrics are independent columns).
      profile.problems.Add(
          DataProblem::kRowCutShort,
          fmt::format("{}: {} of {} cells", where, record.fields.size(), header.size()));
    }
    ProfiledKernel& kernel = profile.kernels.emplace_back();
    kernel.id = id;
    kernel.pid = ParseLaunchDims(Cell(record.fields, columns.pid));
    kernel.name = Cell(record.fields, columns.kernel_name);
    kernel.device = Cell(record.fields, columns.device);
    kernel.grid_blocks = ParseLaunchDims(Cell(record.fields, columns.grid_size));
    kernel.block_threads = ParseLaunchDims(Cell(record.fields, columns.block_size));
    for (int column : columns.metric_columns) {
      const std::string& text = Cell(record.fields, column);
      if (text.empty()) continue;
      kernel.metrics.push_back(
          MakeNcuMetric("", header[column], Cell(units, column), text, where, profile.problems));
      profile.metric_count++;
    }
  }
}

}  // namespace gpuwhy
