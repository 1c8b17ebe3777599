// Deterministic mutation fuzzing of the profiler summary readers, seeded from the real reports
// in ../shared/data/nsys_stats (their first 32 KiB) and inline reports of each layout when the
// data is absent. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_summaries_fuzz_test
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/fuzz_mutator.h"
#include "ingest/summaries/summary_fuzz_body.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKernSumSeed =
    " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n\n"
    " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)"
    "  Name\n"
    " --------  ---------------  ---------  --------  --------  --------  --------  -----------"
    "  ----\n"
    "     90.0          9000000         10  900000.0  900000.0    890000    910000        100.0"
    "  sm80_xmma_gemm_f16f16_f16f32_f32_tn_n\n"
    "     10.0          1000000        100   10000.0   10000.0      9000     11000         10.0"
    "  void at::native::vectorized_elementwise_kernel<(int)4>(int, T2, T3)\n";

constexpr const char* kDlprofKernelSeed =
    "Kernel Name,Op Name,Uses TC,Total GPU Time (ns),Calls,Avg (ns),Min (ns),Max (ns)\n"
    "volta_h884gemm_64x64,linear,yes,1000,2,500,400,600\n"
    "elementwise_kernel,relu,no,300,3,100,90,110\n";

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kKernSumSeed, kDlprofKernelSeed};
  for (std::string& seed :
       testing::ReadSeedFiles({fs::path(GPUWHY_SHARED_DATA) / "nsys_stats"}, 32 << 10)) {
    seeds.push_back(std::move(seed));
  }
  return seeds;
}

TEST(ProfileSummaryFuzzTest, MutantsNeverBreakTheContract) {
  int64_t runs = 0;
  EXPECT_EQ(testing::FuzzTextMutants(Seeds(), 0x73756d6dULL, 1500, FuzzProfileSummaryReader, runs),
            "");
  RecordProperty("runs", std::to_string(runs));
}

}  // namespace
}  // namespace gpuwhy
