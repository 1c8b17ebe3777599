// The body shared by the deterministic mutation fuzzer (json_report_reader_fuzz_test.cc, in
// ctest, also under the sanitizers) and the libFuzzer target (fuzz/, clang only): read |data| as
// a gpuwhy JSON report (what `gpuwhy diff` reads) and check the contract: no crash, no
// exception, no undefined behaviour, and an error names the input ("NAME: ...").
#pragma once

#include <string>
#include <string_view>

#include "report/json_report_reader.h"

namespace gpuwhy {

inline constexpr std::string_view kReportFuzzName = "fuzz.json";

// Returns false when the contract is broken (the caller reports or aborts).
inline bool FuzzJsonReportReader(std::string_view data) {
  StatusOr<RankSummary> summary = ParseReportSummary(data, std::string(kReportFuzzName));
  if (!summary.ok()) return summary.status().message().starts_with(kReportFuzzName);
  // Every step has one value per category the first step defined.
  for (const RankStepTiming& step : summary->steps) {
    if (step.category_ns.size() != summary->step_categories.size()) return false;
  }
  return true;
}

}  // namespace gpuwhy
