// Deterministic mutation fuzzing of the torch.cuda.memory_summary() text parser (with its
// memory_stats() dicts and OOM messages), seeded from the real summaries in
// ../shared/data/logs/memory_summary and an inline table, OOM messages and dicts behind log
// prefixes. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_memory_summary_fuzz_test
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/fuzz_mutator.h"
#include "ingest/memory/memory_summary_fuzz_body.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

constexpr const char* kInlineSeed =
    "[rank1]: |                  PyTorch CUDA memory summary, device ID 1                 |\n"
    "[rank1]: |            CUDA OOMs: 2            |        cudaMalloc retries: 5         |\n"
    "[rank1]: | Allocated memory      |   10 GiB   |   12 GiB   |  100 GiB   |   90 GiB   |\n"
    "[rank1]: |       from large pool |    9 GiB   |   11 GiB   |   99 GiB   |   90 GiB   |\n"
    "[rank1]: | GPU reserved memory   |   14 GiB   |   14 GiB   |   14 GiB   |    0 B     |\n"
    "[rank1]: | Allocations           |    1024    |    2048    |   10 K     |    9 K     |\n"
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has "
    "a total capacity of 79.15 GiB of which 1.23 GiB is free. Process 7 has 3.00 GiB memory in "
    "use. Including non-PyTorch memory, this process has 77.91 GiB memory in use. Of the "
    "allocated memory 73.21 GiB is allocated by PyTorch, and 3.95 GiB is reserved by PyTorch "
    "but unallocated.\n"
    "RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total "
    "capacity; 130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by "
    "PyTorch)\n"
    "[rank0]: OrderedDict([('active.all.current', 4300), ('allocated_bytes.all.current', "
    "12884901888), ('inactive_split_bytes.all.current', 6442450944), ('max_split_size', -1), "
    "('num_alloc_retries', 3), ('oversize_allocations.peak', 2)])\n"
    "{\"reserved_bytes.all.current\": 21474836480, \"num_ooms\": 0, \"segment.all.peak\": 310}\n";

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kInlineSeed};
  for (std::string& seed : testing::ReadSeedFiles(
           {fs::path(GPUWHY_SHARED_DATA) / "logs" / "memory_summary"}, 32 << 10)) {
    seeds.push_back(std::move(seed));
  }
  return seeds;
}

TEST(MemorySummaryFuzzTest, MutantsNeverBreakTheContract) {
  int64_t runs = 0;
  EXPECT_EQ(testing::FuzzTextMutants(Seeds(), 0x6d656d73ULL, 1500, FuzzMemorySummaryParser, runs),
            "");
  RecordProperty("runs", std::to_string(runs));
}

}  // namespace
}  // namespace gpuwhy
