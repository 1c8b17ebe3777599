// Nsight Compute CSV exports (`ncu --csv`, `ncu --import x.ncu-rep --csv`) into a KernelProfile
// (model/kernel_profile.h): the details page (one row per metric: "ID", ..., "Kernel Name",
// ..., "Section Name", "Metric Name", "Metric Unit", "Metric Value", with or without the
// Block/Grid Size, Device and CC columns of newer versions) and the raw page (`--page raw`: one
// row per kernel, a column per metric, a units row under the header). Values keep their
// thousands separators in the text and are scaled to base units (docs/ncu.md).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/kernel_profile.h"

namespace gpuwhy {

// Whether |head| (the start of a file) is an Nsight Compute CSV: its first record past any
// "==PROF==" lines is a header that opens with "ID" and names "Kernel Name" and either the
// details page's metric columns or raw metric ids ("gpu__time_duration.sum").
bool LooksLikeNcuCsv(std::string_view head);

// Parses an export. Rows that cannot be read are counted (unparsed_line, row_cut_short,
// truncated for a cut last record, unknown_unit, unmapped_metric for sections gpuwhy does not
// read) and skipped; a text that is not an ncu CSV, or holds no kernel, is an error naming
// |name| and the line.
StatusOr<KernelProfile> ParseNcuCsv(std::string_view text, std::string_view name);

// Reads |path| whole (gzip allowed) and parses it; errors are "PATH: ...".
StatusOr<KernelProfile> ImportNcuCsv(const std::string& path);

}  // namespace gpuwhy
