// Deterministic mutation fuzzing of the rank summary reader (--summary files), seeded from a
// summary rendered here with every field set. Short in ctest and in the sanitizer pass (label
// untrusted_input); for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ranks_io_fuzz_test
#include <gtest/gtest.h>

#include <random>

#include "base/fuzz_mutator.h"
#include "ranks/rank_summary_example.h"
#include "ranks/summary_json_fuzz_body.h"

namespace gpuwhy {
namespace summary_json_fuzz_test {

RankSummary Example() {
  RankSummary s = ranks_test::ExampleRankSummary();
  s.steps.push_back({8, 1'700'000'000'012'500'000, 1'700'000'000'025'000'000, 9'100'000, 0});
  return s;
}

TEST(RankSummaryFuzzTest, MutantsNeverBreakTheContract) {
  std::vector<std::string> seeds = {RenderRankSummaryJson(Example()),
                                    RenderRankSummaryJson(RankSummary{})};
  for (const std::string& seed : seeds) ASSERT_TRUE(FuzzRankSummaryReader(seed)) << seed;
  std::mt19937_64 rng(0x73756d6d617279ULL);
  testing::FuzzBudget budget(20000);
  while (budget.Next()) {
    std::string mutant = testing::MutateText(seeds[rng() % seeds.size()], rng);
    ASSERT_TRUE(FuzzRankSummaryReader(mutant))
        << "run " << budget.runs() << ": contract broken for input of " << mutant.size()
        << " bytes: " << mutant.substr(0, 2000);
  }
  RecordProperty("runs", std::to_string(budget.runs()));
}

}  // namespace summary_json_fuzz_test
}  // namespace gpuwhy
