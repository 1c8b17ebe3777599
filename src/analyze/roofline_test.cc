// Roofline classes on the hand-written modern fixtures (one kernel per class, both pages give
// the same) and on the real A100 exports (tests/ncu_counts.py checks the same classes with its
// own reading of the rule).
#include "analyze/roofline.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/ncu/ncu_csv_importer.h"

namespace gpuwhy {
namespace roofline_test {

namespace fs = std::filesystem;

std::string Classes(const KernelProfile& profile) {
  std::string out;
  for (const ProfiledKernel& k : profile.kernels) {
    if (!out.empty()) out += ",";
    out += RooflineClassId(ClassifyProfiledKernel(k).roofline_class);
  }
  return out;
}

TEST(RooflineTest, ModernFixturesGiveOneKernelPerClassOnBothPages) {
  for (const char* file : {"modern_details.ncu.csv", "modern_raw.ncu.csv"}) {
    StatusOr<KernelProfile> p = ImportNcuCsv((fs::path(GPUWHY_TEST_DATA) / "ncu" / file).string());
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(Classes(*p), "memory_bound,compute_bound,occupancy_limited,latency_bound") << file;
    const KernelRoofline add = ClassifyProfiledKernel(p->kernels[0]);
    EXPECT_EQ(add.memory_pct, 91.37);
    EXPECT_EQ(add.sm_pct, 14.02);
    EXPECT_EQ(add.rule, "memory 91.4% >= 60% of peak and > SM 14.0%");
    EXPECT_DOUBLE_EQ(*add.duration_ns, 42560);
    EXPECT_DOUBLE_EQ(*add.dram_bytes, 40.37e6);
    const KernelRoofline reduce = ClassifyProfiledKernel(p->kernels[2]);
    EXPECT_EQ(reduce.rule, "SM 0.9% and memory 1.5% < 60% of peak; achieved occupancy 15.6% < 25%");
    EXPECT_EQ(reduce.waves_per_sm, 0.02);
  }
}

TEST(RooflineTest, ThresholdsAreParameters) {
  StatusOr<KernelProfile> p =
      ImportNcuCsv((fs::path(GPUWHY_TEST_DATA) / "ncu" / "modern_details.ncu.csv").string());
  ASSERT_TRUE(p.ok());
  RooflineParams strict;
  strict.high_throughput_pct = 95;
  EXPECT_EQ(ClassifyProfiledKernel(p->kernels[0], strict).roofline_class,
            RooflineClass::kLatencyBound);  // 91% memory, 87% occupancy
}

TEST(RooflineTest, WithoutThroughputMetricsItSaysWhatIsMissing) {
  ProfiledKernel k;
  k.metrics.push_back({"Occupancy", "Achieved Occupancy", "%", "12", 12.0});
  const KernelRoofline r = ClassifyProfiledKernel(k);
  EXPECT_EQ(r.roofline_class, RooflineClass::kUnclassified);
  EXPECT_NE(r.rule.find("--section SpeedOfLight"), std::string::npos);
  EXPECT_EQ(r.achieved_occupancy_pct, 12.0);
}

// The old exports give the throughputs through --metrics: every kernel is classified. These are
// single launches of small attention benchmarks, mostly grids far below one wave of 108 SMs.
TEST(RooflineTest, RealA100ExportsAreClassified) {
  const fs::path dir = fs::path(GPUWHY_SHARED_DATA) / "ncu";
  if (!fs::exists(dir)) GTEST_SKIP() << "no " << dir << " (shared data absent)";
  const std::pair<const char*, const char*> expected[] = {
      {"leleucasAPC_bert_flashattn_nsight.csv", "lolooooooo"},
      {"leleucasAPC_gpt2_torch_nsight.csv", "lolooooooooooooooooooooooo"},
      {"leleucasAPC_sam_flashattn_nsight.csv", "lololoooo"},
  };
  for (const auto& [file, classes] : expected) {
    StatusOr<KernelProfile> p = ImportNcuCsv((dir / file).string());
    ASSERT_TRUE(p.ok()) << p.status().message();
    std::string got;
    for (const ProfiledKernel& k : p->kernels) {
      const RooflineClass c = ClassifyProfiledKernel(k).roofline_class;
      got += c == RooflineClass::kOccupancyLimited ? 'o'
             : c == RooflineClass::kLatencyBound   ? 'l'
             : c == RooflineClass::kMemoryBound    ? 'm'
             : c == RooflineClass::kComputeBound   ? 'c'
                                                   : '?';
    }
    EXPECT_EQ(got, classes) << file;
  }
  StatusOr<KernelProfile> bert = ImportNcuCsv((dir / expected[0].first).string());
  ASSERT_TRUE(bert.ok());
  const KernelRoofline first = ClassifyProfiledKernel(bert->kernels[0]);
  EXPECT_EQ(first.rule, "SM 39.1% and memory 3.0% < 60% of peak; achieved occupancy 49.2% >= 25%");
  EXPECT_EQ(first.tensor_instructions, 0.0);
  EXPECT_EQ(first.dram_bytes, 384.0);
  EXPECT_EQ(first.registers_per_thread, 48.0);
}

}  // namespace roofline_test
}  // namespace gpuwhy
