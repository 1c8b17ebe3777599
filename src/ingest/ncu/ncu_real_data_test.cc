// The three real A100 exports in ../shared/data/ncu (ncu from CUDA 11.4: the details page with
// Launch Statistics, Occupancy, command-line metrics and rule rows, no Speed Of Light
// section): every row is read, with the kernel and metric counts Python's csv module gives
// (tests/ncu_counts.py checks the same through `gpuwhy info`).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file_input.h"
#include "ingest/ncu/ncu_csv_importer.h"

namespace gpuwhy {
namespace ncu_real_data_test {

namespace fs = std::filesystem;

const fs::path kNcu = fs::path(GPUWHY_SHARED_DATA) / "ncu";

struct Expected {
  const char* file;
  size_t kernels;
  int64_t metrics;
};

// python3: rows with a Metric Name, distinct IDs among them (csv.DictReader).
constexpr Expected kFiles[] = {
    {"leleucasAPC_bert_flashattn_nsight.csv", 10, 600},
    {"leleucasAPC_gpt2_torch_nsight.csv", 26, 1560},
    {"leleucasAPC_sam_flashattn_nsight.csv", 9, 540},
};

TEST(NcuRealDataTest, EveryExportImportsWithExactCounts) {
  if (!fs::exists(kNcu)) GTEST_SKIP() << "no " << kNcu << " (shared data absent)";
  for (const Expected& e : kFiles) {
    const std::string path = (kNcu / e.file).string();
    StatusOr<KernelProfile> p = ImportNcuCsv(path);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->kernels.size(), e.kernels) << e.file;
    EXPECT_EQ(p->metric_count, e.metrics) << e.file;
    EXPECT_TRUE(p->problems.empty()) << e.file << ": " << p->problems.Describe();
    for (const ProfiledKernel& k : p->kernels) {
      EXPECT_GT(k.grid_blocks, 0) << e.file << " kernel " << k.id;
      EXPECT_GT(k.block_threads, 0) << e.file << " kernel " << k.id;
      EXPECT_TRUE(k.Value({"sm__throughput.avg.pct_of_peak_sustained_elapsed"})) << k.id;
      EXPECT_TRUE(k.Value({"Achieved Occupancy"})) << k.id;
    }
  }
}

TEST(NcuRealDataTest, FirstKernelOfBertHasItsNumbers) {
  if (!fs::exists(kNcu)) GTEST_SKIP() << "no " << kNcu << " (shared data absent)";
  StatusOr<KernelProfile> p = ImportNcuCsv((kNcu / kFiles[0].file).string());
  ASSERT_TRUE(p.ok()) << p.status().message();
  const ProfiledKernel& k = p->kernels[0];
  EXPECT_EQ(k.id, 0);
  EXPECT_EQ(k.pid, 43201);
  EXPECT_EQ(k.grid_blocks, 768);
  EXPECT_EQ(k.block_threads, 256);
  EXPECT_EQ(k.Value({"Achieved Occupancy"}), 49.16);
  EXPECT_EQ(k.Value({"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"}), 19200.0);
  EXPECT_EQ(k.Value({"sm__cycles_elapsed.avg.per_second"}), 999845384.51);
  EXPECT_EQ(k.Value({"Function Cache Configuration"}), std::nullopt);
  EXPECT_EQ(k.Find("Function Cache Configuration")->text, "cudaFuncCachePreferNone");
}

TEST(NcuRealDataTest, RealExportsAreSniffedAsNcu) {
  if (!fs::exists(kNcu)) GTEST_SKIP() << "no " << kNcu << " (shared data absent)";
  for (const Expected& e : kFiles) {
    StatusOr<std::string> text = ReadWholeFile((kNcu / e.file).string());
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_TRUE(LooksLikeNcuCsv(std::string_view(*text).substr(0, 64 << 10))) << e.file;
  }
}

}  // namespace ncu_real_data_test
}  // namespace gpuwhy
