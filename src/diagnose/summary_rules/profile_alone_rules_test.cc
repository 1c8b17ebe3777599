// An Nsight Compute export alone gets a diagnosis (issue 36): the real SAM export's FP32 SIMT
// sgemm kernels (expert: 50.3 + 20.6 us of 198.2 us, SM 20-29%, occupancy 6-15%, tensor pipe 0)
// and a synthetic export whose GEMM fills the GPU.
#include "diagnose/summary_rules/profile_alone_rules.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/ncu/ncu_csv_importer.h"

namespace gpuwhy {
namespace profile_alone_rules_test {

TEST(ProfileAloneRulesTest, SamExportHasSmallFp32GemmsWithLittleToGain) {
  const std::string path =
      std::string(GPUWHY_SHARED_DATA) + "/ncu/leleucasAPC_sam_torch_nsight.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data absent: " << path;
  StatusOr<KernelProfile> profile = ImportNcuCsv(path);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ProfileAloneResult a = AnalyzeProfileAlone(*profile);
  EXPECT_TRUE(a.timed);  // sm__cycles_elapsed.avg / .per_second on every launch
  EXPECT_NEAR(a.total_ns / 1000, 198.2, 0.2);
  ASSERT_FALSE(a.groups.empty());
  EXPECT_EQ(a.groups[0].name, "ampere_sgemm_32x128_tn");
  EXPECT_NEAR(a.groups[0].total_ns / 1000, 50.3, 0.1);
  EXPECT_EQ(a.groups[0].math, ProfiledMathPath::kFp32Simt);
  EXPECT_NEAR(a.fp32_simt_ns / 1000, 50.3 + 20.6, 0.2);
  EXPECT_EQ(a.support, LowPrecisionSupport::kBf16AndTf32);  // ampere_ kernels
  // Nsight Compute's own rule rows are kept beside the measurements.
  EXPECT_FALSE(a.groups[0].ncu_rules.empty());
  for (const ProfiledKernelGroup& g : a.groups) {
    if (g.kernel_class == KernelClass::kElementwise) {
      EXPECT_EQ(g.math, ProfiledMathPath::kNotMatrix);
    }
  }
  Diagnosis d = DiagnoseProfileAlone(a);
  const Finding* f = d.Find("compute.no_tensor_cores");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bottleneck_class, BottleneckClass::kCompute);
  EXPECT_LE(f->severity, Severity::kLow);  // not a large recoverable share
  EXPECT_NE(f->title.find("too small to fill the GPU"), std::string::npos) << f->title;
  EXPECT_NE(f->fixes.at(0).code.find("bfloat16"), std::string::npos);
  EXPECT_GE(d.notes.size(), 3u);  // the kernels by time with their bound
}

KernelMetric Number(std::string name, std::string unit, double value) {
  return {"", std::move(name), std::move(unit), std::to_string(value), value};
}

TEST(ProfileAloneRulesTest, AGemmThatFillsTheGpuOnFp32IsWorthTensorCores) {
  KernelProfile p;
  p.path = "synthetic.csv";
  ProfiledKernel gemm;
  gemm.id = 0;
  gemm.name = "ampere_sgemm_128x128_nn";
  gemm.metrics = {
      Number("Duration", "nsecond", 8e6),
      Number("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 92),
      Number("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%", 40),
      Number("Achieved Occupancy", "%", 45),
      Number("sm__inst_executed_pipe_tensor.sum", "inst", 0)};
  ProfiledKernel add = gemm;
  add.id = 1;
  add.name = "void at::native::vectorized_elementwise_kernel<4, add>";
  add.metrics[0] = Number("Duration", "nsecond", 2e6);
  p.kernels = {gemm, add};
  ProfileAloneResult a = AnalyzeProfileAlone(p);
  EXPECT_NEAR(a.fp32_simt_pct, 80, 1e-9);
  Diagnosis d = DiagnoseProfileAlone(a);
  const Finding* f = d.Find("compute.no_tensor_cores");
  ASSERT_NE(f, nullptr);
  EXPECT_GE(f->severity, Severity::kMedium) << f->title;
  EXPECT_EQ(f->title.find("too small"), std::string::npos) << f->title;
  // Reason lines satisfy their comparison.
  EXPECT_GT(f->evidence.at(0).metric.value, f->evidence.at(0).threshold);
}

}  // namespace profile_alone_rules_test
}  // namespace gpuwhy
