// The rank summary file of `gpuwhy analyze --summary` (docs/rank-summary.md): written where
// a rank's trace lives, merged anywhere. Versioned by its first key, "gpuwhy_rank_summary".
#pragma once

#include <string>

#include "base/status.h"
#include "ranks/rank_summary.h"

namespace gpuwhy {

std::string RenderRankSummaryJson(const RankSummary& summary);

// Parses a summary document; `path` only names the input in error messages.
StatusOr<RankSummary> ParseRankSummaryJson(std::string_view json, const std::string& path);
StatusOr<RankSummary> ReadRankSummaryFile(const std::string& path);

}  // namespace gpuwhy
