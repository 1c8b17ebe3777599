// The body shared by the deterministic mutation fuzzer (ncu_fuzz_test.cc, in ctest) and the
// libFuzzer target (fuzz/ncu_fuzzer.cc, clang only): sniff and parse |data| as an Nsight
// Compute CSV and check the contract: no crash, no exception, no undefined behaviour (under the
// sanitizers), an error names the input ("NAME: ..."), and the profile is well formed (every
// kernel has a metric or the page is raw, metric_count is the measurements held, no NaN value).
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "ingest/ncu/ncu_csv_importer.h"

namespace gpuwhy {

inline constexpr std::string_view kNcuFuzzName = "fuzz.ncu.csv";

// What broke the contract; "" when it holds (the caller reports or aborts).
inline std::string FuzzNcuImporter(std::string_view data) {
  (void)LooksLikeNcuCsv(data.substr(0, 64 << 10));
  StatusOr<KernelProfile> profile = ParseNcuCsv(data, kNcuFuzzName);
  if (!profile.ok()) {
    return profile.status().message().starts_with(kNcuFuzzName)
               ? ""
               : "error without the name: " + profile.status().message();
  }
  if (profile->kernels.empty()) return "a profile without kernels";
  int64_t metrics = 0;
  for (const ProfiledKernel& kernel : profile->kernels) {
    if (kernel.metrics.empty() && profile->layout == NcuLayout::kDetails) {
      return "a details-page kernel without metrics";
    }
    for (const KernelMetric& metric : kernel.metrics) {
      if (metric.value && !std::isfinite(*metric.value)) return metric.name + ": not finite";
    }
    // Nsight Compute's rule results ("rule: NAME") are held beside the measurements, uncounted.
    for (const KernelMetric& metric : kernel.metrics) metrics += !metric.name.starts_with("rule: ");
  }
  if (metrics != profile->metric_count) return "metric_count differs from the metrics held";
  return "";
}

}  // namespace gpuwhy
