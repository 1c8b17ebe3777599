// The per-report parsers behind profile_summary_reader.h. Internal to src/ingest/summaries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/profile_summary.h"

namespace gpuwhy {

// A report's count or nanosecond cell ("4361845774", "4473688.0") as a whole
// non-negative number; nullopt for anything else, NaN, infinities and values past int64.
std::optional<int64_t> SummaryInteger(std::string_view cell);

StatusOr<ProfileSummary> ParseNsysKernelSummary(std::string_view content, const std::string& path);
StatusOr<ProfileSummary> ParseDlprofSummary(std::string_view content, const std::string& path);
StatusOr<ProfileSummary> ParseDlprofKernels(std::string_view content, const std::string& path);

}  // namespace gpuwhy
