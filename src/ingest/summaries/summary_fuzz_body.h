// The body shared by the deterministic mutation fuzzer (summary_fuzz_test.cc, in ctest) and the
// libFuzzer target (fuzz/summary_fuzzer.cc, clang only): sniff and parse |data| as a profiler
// summary report (nsys stats kernel summary, DLProf summary or kernel CSV) and check the
// contract: no crash, no exception, no undefined behaviour (under the sanitizers), an error
// names the input ("NAME: ..."), and what was read is well formed (no negative count or time,
// a sniffed tool is the tool the parser reports).
#pragma once

#include <string>
#include <string_view>

#include "ingest/summaries/profile_summary_reader.h"

namespace gpuwhy {

inline constexpr std::string_view kSummaryFuzzName = "fuzz.summary.txt";

// What broke the contract; "" when it holds (the caller reports or aborts).
inline std::string FuzzProfileSummaryReader(std::string_view data) {
  const std::optional<SummaryTool> sniffed = SniffProfileSummary(data.substr(0, 64 << 10));
  StatusOr<ProfileSummary> summary = ParseProfileSummary(data, std::string(kSummaryFuzzName));
  if (!summary.ok()) {
    return summary.status().message().starts_with(kSummaryFuzzName)
               ? ""
               : "error without the name: " + summary.status().message();
  }
  if (sniffed && *sniffed != summary->tool) return "the parser disagrees with the sniffer";
  for (const SummaryKernel& kernel : summary->kernels) {
    if (kernel.instances < 0) return kernel.name + ": negative instances";
    if (kernel.total_ns < 0) return kernel.name + ": negative total";
    if (kernel.median_ns != kNoValue && kernel.median_ns < 0) return kernel.name + ": median < 0";
    if (kernel.max_ns != kNoValue && kernel.max_ns < 0) return kernel.name + ": max < 0";
  }
  return "";
}

}  // namespace gpuwhy
