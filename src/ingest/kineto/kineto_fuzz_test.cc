// Deterministic mutation fuzzing of the Kineto importer, seeded from the real traces in
// ../shared/data/kineto (their first 64 KiB, decompressed) and inline traces when the data is
// absent. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_kineto_fuzz_test
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "base/file_input.h"
#include "base/fuzz_mutator.h"
#include "ingest/kineto/kineto_fuzz_body.h"

namespace gpuwhy {
namespace kineto_fuzz_test {

namespace fs = std::filesystem;

constexpr size_t kSeedBytes = 64 << 10;

constexpr const char* kInlineSeeds[] = {
    R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "H100", "totalGlobalMem": 1}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 1000,
   "dur": 500.5, "args": {"External id": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1020.001,
   "dur": 5.999, "args": {"External id": 2, "cbid": 211, "correlation": 77}},
  {"ph": "s", "id": 77, "pid": 1, "tid": 1, "ts": 1020, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1030.5, "dur": 100.25,
   "args": {"device": 0, "stream": 7, "correlation": 77, "grid": [66, 1, 1], "block": [384, 1, 1]}},
  {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 1030.5, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1200,
   "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 78, "bytes": 4096}},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "pid": 0, "tid": 20, "ts": 1400,
   "dur": 50, "args": {"device": 0, "stream": 20, "correlation": 80, "Collective name":
   "allreduce", "In msg nelems": 1024, "Group size": 8, "dtype": "Float"}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
   "ts": 1015, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512, "Total Allocated": 2048}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": 1, "args": {"name": "main"}}
 ],
 "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8,
   "pg_config": [{"pg_name": "0", "pg_size": 8, "ranks": [0,1,2,3,4,5,6,7]}]}})",
    R"([{"name": "aten::add", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "cat": "Operator"},
 {"name": "kernel", "ph": "X", "ts": 2, "dur": 1, "pid": 0, "tid": "stream 7", "cat": "Kernel",
  "args": {"correlation": 1, "device": 0, "stream": 7}}])",
};

// The head of every trace under kineto/ (decompressed): a trace cut short is itself a case.
std::vector<std::string> Seeds() {
  std::vector<std::string> seeds(std::begin(kInlineSeeds), std::end(kInlineSeeds));
  std::error_code ec;
  std::vector<fs::path> paths;
  for (const auto& e :
       fs::recursive_directory_iterator(fs::path(GPUWHY_SHARED_DATA) / "kineto", ec)) {
    if (e.is_regular_file(ec)) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    StatusOr<std::string> head = ReadFileHead(p.string(), kSeedBytes);
    if (head.ok() && !head->empty()) seeds.push_back(std::move(*head));
  }
  return seeds;
}

TEST(KinetoFuzzTest, MutantsNeverBreakTheContract) {
  const std::vector<std::string> seeds = Seeds();
  for (const std::string& seed : seeds) ASSERT_TRUE(FuzzKinetoImporter(seed));
  std::mt19937_64 rng(0x6b696e65746fULL);
  testing::FuzzBudget budget(600);
  while (budget.Next()) {
    std::string mutant = testing::MutateText(seeds[rng() % seeds.size()], rng);
    ASSERT_TRUE(FuzzKinetoImporter(mutant))
        << "run " << budget.runs() << ": contract broken for input of " << mutant.size()
        << " bytes";
  }
  RecordProperty("runs", std::to_string(budget.runs()));
}

}  // namespace kineto_fuzz_test
}  // namespace gpuwhy
