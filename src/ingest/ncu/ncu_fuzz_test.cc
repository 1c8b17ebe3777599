// Deterministic mutation fuzzing of the Nsight Compute importer, seeded from the real exports in
// ../shared/data/ncu (their first 32 KiB), the hand-written fixtures in tests/data/ncu and an
// inline export. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_ncu_fuzz_test
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "base/file_input.h"
#include "base/fuzz_mutator.h"
#include "ingest/ncu/ncu_fuzz_body.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInlineSeed =
    "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Section Name\","
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"9\",\"k<a, b>\",\"(256, 1, 1)\",\"(4, 2, 1)\",\"GPU Speed Of Light Throughput\","
    "\"Duration\",\"usecond\",\"1,024.50\"\n"
    "\"0\",\"9\",\"k<a, b>\",\"(256, 1, 1)\",\"(4, 2, 1)\",\"Occupancy\",\"Achieved "
    "Occupancy\",\"%\",\"12.5\"\n";

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kInlineSeed};
  const auto read = [](const std::string& path) {
    StatusOr<std::string> text = ReadWholeFile(path);
    return text.ok() ? *text : std::string();
  };
  for (const fs::path& dir :
       {fs::path(GPUWHY_SHARED_DATA) / "ncu", fs::path(GPUWHY_TEST_DATA) / "ncu"}) {
    for (std::string& seed : testing::SeedFiles(dir, 32 << 10, read)) {
      seeds.push_back(std::move(seed));
    }
  }
  return seeds;
}

TEST(NcuFuzzTest, MutantsNeverBreakTheContract) {
  const std::vector<std::string> seeds = Seeds();
  for (const std::string& seed : seeds) ASSERT_EQ(FuzzNcuImporter(seed), "");
  std::mt19937_64 rng(0x6e6375ULL);
  testing::FuzzBudget budget(1500);
  while (budget.Next()) {
    std::string mutant = testing::MutateText(seeds[rng() % seeds.size()], rng);
    ASSERT_EQ(FuzzNcuImporter(mutant), "")
        << "run " << budget.runs() << ": contract broken for input of " << mutant.size()
        << " bytes:\n"
        << mutant.substr(0, 3000);
  }
  RecordProperty("runs", std::to_string(budget.runs()));
}

}  // namespace
}  // namespace gpuwhy
