// The body shared by the deterministic mutation fuzzer (summary_json_fuzz_test.cc, in ctest, also
// under the sanitizers) and the libFuzzer target (fuzz/, clang only): read |data| as a rank
// summary (--summary files, merged from many machines) and check the contract: no crash, no
// exception, no undefined behaviour, an error names the input ("NAME: ..."), and what was read
// renders and reads back.
#pragma once

#include <string>
#include <string_view>

#include "ranks/summary_json.h"

namespace gpuwhy {

inline constexpr std::string_view kSummaryFuzzName = "fuzz.json";

// Returns false when the contract is broken (the caller reports or aborts).
inline bool FuzzRankSummaryReader(std::string_view data) {
  StatusOr<RankSummary> summary = ParseRankSummaryJson(data, std::string(kSummaryFuzzName));
  if (!summary.ok()) return summary.status().message().starts_with(kSummaryFuzzName);
  return ParseRankSummaryJson(RenderRankSummaryJson(*summary), "again.json").ok();
}

}  // namespace gpuwhy
