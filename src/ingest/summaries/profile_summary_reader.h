// Readers of profilers' own summary reports into ProfileSummary (model/profile_summary.h):
// `nsys stats` kernel-summary text (cuda_gpu_kern_sum, and gpukernsum of older Nsight Systems,
// with or without NVTX range names) and DLProf's summary and kernel CSVs. Recognised by
// content; a row that cannot be read is an unparsed_line problem, the others are kept.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/profile_summary.h"

namespace gpuwhy {

// Which summary |head| (the start of a file) is, or nullopt when it is none of them.
std::optional<SummaryTool> SniffProfileSummary(std::string_view head);

// Reads |path| whole (bounded by InputLimit::kProfileSummary); an error names the file and why
// (no kernel table, no DLProf section).
StatusOr<ProfileSummary> ReadProfileSummary(const std::string& path);
// The same over bytes already read; |path| is for messages.
StatusOr<ProfileSummary> ParseProfileSummary(std::string_view text, const std::string& path);

}  // namespace gpuwhy
