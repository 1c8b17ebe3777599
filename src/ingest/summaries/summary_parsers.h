// The per-report parsers behind profile_summary_reader.h. Internal to src/ingest/summaries.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/profile_summary.h"

namespace gpuwhy {

StatusOr<ProfileSummary> ParseNsysKernelSummary(std::string_view content, const std::string& path);
StatusOr<ProfileSummary> ParseDlprofSummary(std::string_view content, const std::string& path);
StatusOr<ProfileSummary> ParseDlprofKernels(std::string_view content, const std::string& path);

}  // namespace gpuwhy
