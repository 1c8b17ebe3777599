// Deterministic mutation fuzzing of the whole path (e2e_fuzz_body.h): seeds of every input kind
// (inline miniatures, and the first files of each kind in ../shared/data when present, cut to
// 16 KiB) and their mutants go through classify → import → analyse → diagnose → every renderer,
// the JSON validated against docs/report-schema.json. Short in ctest and in the sanitizer pass
// (label untrusted_input); for a long run: GPUWHY_FUZZ_SECONDS=600 ./e2e_fuzz_test
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "base/fuzz_mutator.h"
#include "e2e_fuzz/e2e_fuzz_body.h"

namespace gpuwhy {
namespace e2e_fuzz_test {

namespace fs = std::filesystem;

constexpr const char* kInlineSeeds[] = {
    // A Kineto trace: one step, one kernel.
    R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100"}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
   "ts": 1000, "dur": 500},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
   "ts": 1010, "dur": 5, "args": {"correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7,
   "ts": 1020, "dur": 300, "args": {"correlation": 7, "device": 0, "stream": 7,
   "grid": [4, 1, 1], "block": [128, 1, 1]}}]})",
    // An nvidia-smi topo -m table whose first row is short (issue 37's crash, as this test found
    // it again: diagnose_platform_test ShortTopoRowMakesNoGroupAndNoCrash).
    "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \nGPU1\tNV12\t X \t0-47\n",
    // A kernel log with an Xid.
    "[  123.456] NVRM: Xid (PCI:0000:07:00): 79, pid=123, GPU has fallen off the bus.\n",
    // nvidia-smi dmon.
    "# gpu   pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
    "# Idx     W      C      C      %      %      %      %    MHz    MHz\n"
    "    0    60     40      -     12      3      0      0   1215   1410\n"
    "    0    61     40      -     90     30      0      0   1215   1410\n",
    // An NCCL log line.
    "node1:123:456 [0] NCCL INFO Channel 00/02 :    0   1\n"
    "node1:123:456 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 7000 - Init COMPLETE\n",
};

// The first |per_kind| files of each kind's folder, cut to |max_bytes|.
std::vector<std::string> SharedSeeds(size_t per_kind, size_t max_bytes) {
  const fs::path data = GPUWHY_SHARED_DATA;
  std::vector<std::string> seeds;
  for (const char* dir :
       {"kineto/hta", "kineto/param", "nsys_stats", "ncu", "memory/snapshots",
        "logs/memory_summary", "logs/dmesg", "logs/dmon", "logs/dcgm", "logs/nvidia-smi",
        "logs/nvidia-smi-q", "logs/nvidia-smi-q-xml", "logs/nvidia-smi-captures", "logs/topo",
        "logs/nccl", "logs/lspci", "logs/infiniband", "logs/oom", "logs/fabric-manager"}) {
    std::vector<std::string> kind = testing::ReadSeedFiles({data / dir}, max_bytes);
    kind.resize(std::min(kind.size(), per_kind));
    for (std::string& seed : kind) seeds.push_back(std::move(seed));
  }
  return seeds;
}

TEST(EndToEndFuzzTest, MutantsOfEveryInputKindRenderAndValidate) {
  EndToEndFuzzer fuzzer(GPUWHY_REPORT_SCHEMA, ::testing::TempDir() + "e2e_fuzz_test");
  ASSERT_EQ(fuzzer.setup_error(), "");
  std::vector<std::string> seeds(std::begin(kInlineSeeds), std::end(kInlineSeeds));
  for (std::string& seed : SharedSeeds(2, 16384)) seeds.push_back(std::move(seed));
  int64_t runs = 0;
  std::string broken = testing::FuzzTextMutants(
      seeds, 0x6532656675ULL, 300, [&](const std::string& input) { return fuzzer.Run(input); },
      runs);
  EXPECT_EQ(broken, "");
  RecordProperty("seeds", std::to_string(seeds.size()));
  RecordProperty("runs", std::to_string(runs));
}

}  // namespace e2e_fuzz_test
}  // namespace gpuwhy
