// Deterministic mutation fuzzing of the profiler memory-timeline importer, seeded from the real
// HTA timeline in ../shared/data/memory (its first 32 KiB) and an inline timeline when the data is
// absent. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_memory_timeline_fuzz_test
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/fuzz_mutator.h"
#include "ingest/memory/memory_timeline_fuzz_body.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInlineSeed =
    "[[-1, 1, 37888, 7], [-1, 1, 512, 0], [1696966047096061874, 2, 4096, 4], "
    "[1696966047096061874, 3, -4096, 4], [1696966047096061874, 3, 4096, 5], "
    "[1696966047096062000, 4, -4096, 5], [1696966047096063000, 2, 64, 6]]";

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kInlineSeed};
  for (std::string& seed :
       testing::ReadSeedFiles({fs::path(GPUWHY_SHARED_DATA) / "memory"}, 32 << 10)) {
    seeds.push_back(std::move(seed));
  }
  return seeds;
}

TEST(MemoryTimelineFuzzTest, MutantsNeverBreakTheContract) {
  int64_t runs = 0;
  EXPECT_EQ(testing::FuzzTextMutants(Seeds(), 0x6d74696dULL, 1500, FuzzMemoryTimelineParser, runs),
            "");
  RecordProperty("runs", std::to_string(runs));
}

}  // namespace
}  // namespace gpuwhy
