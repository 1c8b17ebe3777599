// Deterministic mutation fuzzing of the Nsight Compute importer, seeded from the real exports in
// ../shared/data/ncu (their first 32 KiB), the hand-written fixtures in tests/data/ncu and an
// inline export. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_ncu_fuzz_test
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/fuzz_mutator.h"
#include "ingest/ncu/ncu_fuzz_body.h"

namespace gpuwhy {
namespace ncu_fuzz_test {

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
  for (std::string& seed : testing::ReadSeedFiles(
           {fs::path(GPUWHY_SHARED_DATA) / "ncu", fs::path(GPUWHY_TEST_DATA) / "ncu"}, 32 << 10)) {
    seeds.push_back(std::move(seed));
  }
  return seeds;
}

TEST(NcuFuzzTest, MutantsNeverBreakTheContract) {
  int64_t runs = 0;
  EXPECT_EQ(testing::FuzzTextMutants(Seeds(), 0x6e6375ULL, 1500, FuzzNcuImporter, runs), "");
  RecordProperty("runs", std::to_string(runs));
}

}  // namespace ncu_fuzz_test
}  // namespace gpuwhy
