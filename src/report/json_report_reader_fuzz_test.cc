// Deterministic mutation fuzzing of the JSON report reader (gpuwhy diff), seeded from inline
// reports shaped as `gpuwhy analyze --format json` writes them (docs/report-schema.json). Short in
// ctest and in the sanitizer pass (label untrusted_input); for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./report_reader_fuzz_test
#include <gtest/gtest.h>

#include <random>

#include "base/fuzz_mutator.h"
#include "report/json_report_reader_fuzz_body.h"

namespace gpuwhy {
namespace json_report_reader_fuzz_test {

constexpr const char* kSeeds[] = {
    R"({"schema_version": 1, "tool": "gpuwhy", "ranks": [{"rank": 3, "path": "rank3.json",
  "steps": [{"step": 7, "time_ms": 12.5, "breakdown_ms": {"compute": 9.0, "communication": 1.5,
    "memcpy": 0.5, "idle": 1.5}},
   {"step": 8, "time_ms": 13.0, "breakdown_ms": {"compute": 9.5, "communication": 1.5,
    "memcpy": 0.5, "idle": 1.5}}],
  "metrics": [{"id": "step.time_median_ms", "scope": {"device": null, "stream": null,
    "step": null}, "value": 12.75, "unit": "ms"},
   {"id": "gpu.util_pct", "scope": {"device": 0, "stream": null, "step": null}, "value": null,
    "unit": "%"}],
  "findings": [{"id": "input.dataloader_wait", "severity": "high", "title": "62% waits",
    "recoverable_ms_per_step": 7.0}],
  "top_kernels": [{"name": "ampere_bf16_gemm", "count": 120, "total_ms": 4.0}]}],
 "errors": []})",
    R"({"schema_version": 1, "tool": "gpuwhy", "ranks": [{"rank": null, "steps": [],
  "metrics": [], "findings": [], "top_kernels": []}, {"rank": 1}]})",
};

TEST(JsonReportReaderFuzzTest, MutantsNeverBreakTheContract) {
  std::vector<std::string> seeds(std::begin(kSeeds), std::end(kSeeds));
  for (const std::string& seed : seeds) ASSERT_TRUE(FuzzJsonReportReader(seed));
  std::mt19937_64 rng(0x7265706f7274ULL);
  testing::FuzzBudget budget(20000);
  while (budget.Next()) {
    std::string mutant = testing::MutateText(seeds[rng() % seeds.size()], rng);
    ASSERT_TRUE(FuzzJsonReportReader(mutant))
        << "run " << budget.runs() << ": contract broken for input of " << mutant.size()
        << " bytes";
  }
  RecordProperty("runs", std::to_string(budget.runs()));
}

}  // namespace json_report_reader_fuzz_test
}  // namespace gpuwhy
