// The two page readers behind ParseNcuCsv (ncu_csv_importer.cc), sharing the header's column
// map and the metric builder. Internal to src/ingest/ncu.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ingest/ncu/csv_records.h"
#include "model/kernel_profile.h"

namespace gpuwhy {

// Where the identity columns sit in the header; -1 when absent.
struct NcuColumns {
  int id = -1;
  int pid = -1;
  int kernel_name = -1;
  int block_size = -1;  // "(256, 1, 1)" in newer exports
  int grid_size = -1;
  int device = -1;
  int section = -1;  // details page only
  int metric_name = -1;
  int metric_unit = -1;
  int metric_value = -1;
  // Nsight Compute's own rule results (details page): "Occupancy", "WRN", what it found, and
  // in newer exports its estimated speedup (%).
  int rule_name = -1;
  int rule_type = -1;
  int rule_description = -1;
  int estimated_speedup = -1;
  // Raw page: the columns that are metrics (everything that is not an identity column).
  std::vector<int> metric_columns;
};

// The columns of |header|; the layout is kDetails when it has Metric Name and Metric Value.
NcuColumns MapNcuColumns(const std::vector<std::string>& header, NcuLayout& layout);

// A metric from its printed parts, its value scaled to the unit's base; an unknown unit is
// counted on |problems| (detail "NAME: line N: ...") and its value kept unscaled.
KernelMetric MakeNcuMetric(std::string section, std::string name, std::string unit,
                           std::string text, std::string_view where, DataProblems& problems);

// "(768, 1, 1)" or "768" -> the product of the dimensions; -1 when it is neither.
int64_t ParseLaunchDims(std::string_view text);

// The launch shape and device from a kernel's own metrics where the columns did not give them.
void FillLaunchFromMetrics(ProfiledKernel& kernel);

// Each reads the records after the header into |profile| (kernels, metric_count, problems).
void ReadNcuDetailsPage(CsvRecordReader& reader, const NcuColumns& columns, std::string_view name,
                        KernelProfile& profile);
void ReadNcuRawPage(CsvRecordReader& reader, const std::vector<std::string>& header,
                    const NcuColumns& columns, std::string_view name, KernelProfile& profile);

}  // namespace gpuwhy
