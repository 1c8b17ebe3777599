#include "ingest/ncu/ncu_csv_importer.h"

#include <fmt/format.h>
#include <array>

#include "base/file_input.h"
#include "ingest/ncu/ncu_pages.h"
#include "ingest/ncu/ncu_values.h"

namespace gpuwhy {
namespace {

// ncu prints its progress ("==PROF== Connected to process ...", "==WARNING== ...") on the
// same stream as the CSV when both go to one file: those lines come before the header.
bool IsProfilerNote(const CsvRecord& record) {
  return !record.fields.empty() && record.fields[0].starts_with("==");
}

// The header record, past the profiler's notes; false when the text has none.
bool ReadHeader(CsvRecordReader& reader, CsvRecord& header) {
  while (reader.Next(header)) {
    if (!IsProfilerNote(header)) return true;
  }
  return false;
}

bool HasRawMetricColumn(const NcuColumns& columns, const std::vector<std::string>& header) {
  for (int column : columns.metric_columns) {
    if (header[column].find("__") != std::string::npos) return true;
  }
  return false;
}

// Whether |header| is one of the two pages, and which.
bool IsNcuHeader(const CsvRecord& header, NcuColumns& columns, NcuLayout& layout) {
  if (header.unterminated || header.fields.empty() || header.fields[0] != "ID") return false;
  columns = MapNcuColumns(header.fields, layout);
  if (columns.kernel_name < 0) return false;
  if (layout == NcuLayout::kDetails) return true;
  return HasRawMetricColumn(columns, header.fields);
}

}  // namespace

bool LooksLikeNcuCsv(std::string_view head) {
  CsvRecordReader reader(head);
  CsvRecord header;
  NcuColumns columns;
  NcuLayout layout = NcuLayout::kDetails;
  return ReadHeader(reader, header) && IsNcuHeader(header, columns, layout);
}

StatusOr<KernelProfile> ParseNcuCsv(std::string_view text, std::string_view name) {
  CsvRecordReader reader(text);
  CsvRecord header;
  if (!ReadHeader(reader, header)) return InvalidArgument("{}: no CSV header", name);
  KernelProfile profile;
  NcuColumns columns;
  if (!IsNcuHeader(header, columns, profile.layout)) {
    return InvalidArgument(
        "{}: line {}: not an Nsight Compute CSV (its header does not open with \"ID\" and name "
        "\"Kernel Name\" and the metric columns of `ncu --csv`)",
        name, header.line);
  }
  if (profile.layout == NcuLayout::kDetails) {
    ReadNcuDetailsPage(reader, columns, name, profile);
  } else {
    ReadNcuRawPage(reader, header.fields, columns, name, profile);
  }
  if (profile.kernels.empty()) {
    return InvalidArgument("{}: an Nsight Compute CSV ({} page) with no kernel rows", name,
                           NcuLayoutName(profile.layout));
  }
  for (ProfiledKernel& kernel : profile.kernels) FillLaunchFromMetrics(kernel);
  return profile;
}

StatusOr<KernelProfile> ImportNcuCsv(const std::string& path) {
  StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  StatusOr<KernelProfile> profile = ParseNcuCsv(*text, path);
  if (profile.ok()) profile->path = path;
  return profile;
}

}  // namespace gpuwhy
