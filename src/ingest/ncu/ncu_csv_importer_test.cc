// The two pages on inline exports and on the hand-written modern fixtures in tests/data/ncu
// (written from the column layout of ncu 2023.x: Block/Grid Size, Device and CC columns, the
// GPU Speed Of Light Throughput section, Estimated Speedup columns; the raw page with its units
// row and a "==PROF==" line before the header), and bad input.
#include "ingest/ncu/ncu_csv_importer.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpuwhy {
namespace ncu_csv_importer_test {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(GPUWHY_TEST_DATA) / "ncu";

constexpr std::string_view kOldDetails =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\","
    "\"Context\",\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\","
    "\"Rule Name\",\"Rule Type\",\"Rule Description\"\n"
    "\"0\",\"1\",\"py\",\"h\",\"k<a, b>(int)\",\"t\",\"1\",\"7\",\"Command line profiler "
    "metrics\",\"dram__bytes.sum\",\"Kbyte\",\"1,024.50\",\"\",\"\",\"\"\n"
    "\"0\",\"1\",\"py\",\"h\",\"k<a, b>(int)\",\"t\",\"1\",\"7\",\"Launch Statistics\",\"Grid "
    "Size\",\"\",\"3\",\"\",\"\",\"\"\n"
    "\"0\",\"1\",\"py\",\"h\",\"k<a, b>(int)\",\"t\",\"1\",\"7\",\"LaunchStats\",\"\",\"\",\"\","
    "\"LaunchConfiguration\",\"WRN\",\"grid too small\"\n"
    "\"1\",\"1\",\"py\",\"h\",\"other\",\"t\",\"1\",\"7\",\"Occupancy\",\"Achieved "
    "Occupancy\",\"%\",\"12.44\",\"\",\"\",\"\"\n";

TEST(NcuCsvImporterTest, OldDetailsPage) {
  ASSERT_TRUE(LooksLikeNcuCsv(kOldDetails));
  StatusOr<KernelProfile> p = ParseNcuCsv(kOldDetails, "x.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->layout, NcuLayout::kDetails);
  ASSERT_EQ(p->kernels.size(), 2u);
  EXPECT_EQ(p->metric_count, 3);  // the rule's row is not a metric
  EXPECT_EQ(p->kernels[0].name, "k<a, b>(int)");
  EXPECT_EQ(p->kernels[0].grid_blocks, 3);
  EXPECT_EQ(p->kernels[0].Value({"dram__bytes.sum"}), 1024500.0);
  EXPECT_EQ(p->kernels[0].Find("dram__bytes.sum")->text, "1,024.50");
  EXPECT_EQ(p->kernels[1].Value({"Achieved Occupancy"}), 12.44);
  EXPECT_TRUE(p->problems.empty()) << p->problems.Describe();
}

TEST(NcuCsvImporterTest, ModernDetailsFixture) {
  StatusOr<KernelProfile> p = ImportNcuCsv((kFixtures / "modern_details.ncu.csv").string());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->layout, NcuLayout::kDetails);
  ASSERT_EQ(p->kernels.size(), 4u);
  EXPECT_EQ(p->metric_count, 4 * 29);
  EXPECT_TRUE(p->problems.empty()) << p->problems.Describe();
  const ProfiledKernel& gemm = p->kernels[1];
  EXPECT_EQ(gemm.name, "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn");
  EXPECT_EQ(gemm.grid_blocks, 384);  // "(16, 24, 1)"
  EXPECT_EQ(gemm.block_threads, 256);
  EXPECT_EQ(gemm.device, "0");
  EXPECT_EQ(gemm.Value({"Compute (SM) Throughput"}), 86.51);
  EXPECT_DOUBLE_EQ(*gemm.Value({"Duration"}), 1.27e6);  // msecond -> ns
  EXPECT_DOUBLE_EQ(*gemm.Value({"SM Frequency"}), 1.41e9);
  // The same name in two sections: the first is the percentage of the Speed Of Light.
  EXPECT_EQ(gemm.Find("Memory Throughput")->unit, "%");
}

TEST(NcuCsvImporterTest, ModernRawFixture) {
  StatusOr<KernelProfile> p = ImportNcuCsv((kFixtures / "modern_raw.ncu.csv").string());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->layout, NcuLayout::kRaw);
  ASSERT_EQ(p->kernels.size(), 4u);
  EXPECT_EQ(p->metric_count, 4 * 12);
  EXPECT_TRUE(p->problems.empty()) << p->problems.Describe();
  const ProfiledKernel& gemm = p->kernels[1];
  EXPECT_EQ(gemm.device, "0");
  EXPECT_EQ(gemm.Find("device__attribute_display_name")->text, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(gemm.grid_blocks, 384);
  EXPECT_DOUBLE_EQ(*gemm.Value({"gpu__time_duration.sum"}), 1.27e6);  // "1,270.00" usecond
  EXPECT_DOUBLE_EQ(*gemm.Value({"dram__bytes.sum"}), 52.43e6);
  EXPECT_EQ(p->kernels[0].grid_blocks, 20736);
}

TEST(NcuCsvImporterTest, NotNcuTruncatedAndUnknowns) {
  EXPECT_FALSE(LooksLikeNcuCsv("timestamp, index, utilization.gpu [%]\n"));
  EXPECT_FALSE(LooksLikeNcuCsv("EntityId,GRACT,FBUSD,TimeStamp\n0,0.25,1,2\n"));
  EXPECT_FALSE(LooksLikeNcuCsv("\"ID\",\"Name\"\n\"1\",\"x\"\n"));
  StatusOr<KernelProfile> other = ParseNcuCsv("a,b\n1,2\n", "x.csv");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message().rfind("x.csv: line 1: not an Nsight Compute CSV", 0), 0u)
      << other.status().message();
  // Only a header: no kernel.
  std::string header(kOldDetails.substr(0, kOldDetails.find('\n') + 1));
  StatusOr<KernelProfile> empty = ParseNcuCsv(header, "x.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no kernel rows"), std::string::npos);
  // Cut in the middle of the last row: the rows before it stay.
  std::string cut(kOldDetails.substr(0, kOldDetails.size() - 20));
  StatusOr<KernelProfile> partial = ParseNcuCsv(cut, "x.csv");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->kernels.size(), 1u);
  EXPECT_EQ(partial->problems.Get(DataProblem::kTruncated), 1) << partial->problems.Describe();
  // An unknown unit and section are kept and counted; a bad ID and a short row are skipped.
  std::string odd = header +
                    "\"0\",\"1\",\"py\",\"h\",\"k\",\"t\",\"1\",\"7\",\"My Section\",\"m\","
                    "\"furlong\",\"2\",\"\",\"\",\"\"\n"
                    "\"zero\",\"1\",\"py\",\"h\",\"k\",\"t\",\"1\",\"7\",\"Occupancy\",\"m\","
                    "\"\",\"2\",\"\",\"\",\"\"\n"
                    "\"0\",\"1\",\"py\"\n";
  StatusOr<KernelProfile> kept = ParseNcuCsv(odd, "x.csv");
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->metric_count, 1);
  EXPECT_EQ(kept->kernels[0].Value({"m"}), 2.0);
  EXPECT_EQ(kept->problems.Get(DataProblem::kUnknownUnit), 1);
  EXPECT_EQ(kept->problems.Get(DataProblem::kUnmappedMetric), 1);
  EXPECT_EQ(kept->problems.Get(DataProblem::kUnparsedLine), 1);
  EXPECT_EQ(kept->problems.Get(DataProblem::kRowCutShort), 1);
  EXPECT_EQ(kept->problems.Detail(DataProblem::kRowCutShort), "x.csv: line 4: 3 of 12 cells");
}

TEST(NcuCsvImporterTest, MissingFileNamesIt) {
  StatusOr<KernelProfile> p = ImportNcuCsv("/nonexistent/k.ncu.csv");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/k.ncu.csv"), std::string::npos);
}

}  // namespace ncu_csv_importer_test
}  // namespace gpuwhy
