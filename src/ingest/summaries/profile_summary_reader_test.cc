// The summary readers on hand-written reports (every layout rule, bad rows) and on every real
// report in ../shared/data/nsys_stats (skipped when absent). tests/profile_summary_check.py
// checks the real files' rows and totals against an independent Python reading.
#include "ingest/summaries/profile_summary_reader.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace gpuwhy {
namespace profile_summary_reader_test {

namespace fs = std::filesystem;

constexpr std::string_view kKernSum = R"(
Processing [run.sqlite] with [/opt/nvidia/nsight-systems-cli/reports/cuda_gpu_kern_sum.py]...

 ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):

 Time (%)  Total Time (ns)  Instances  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)  Name
 --------  ---------------  ---------  ---------  ---------  --------  --------  -----------  ----------------------
     90.0          9000000         10   900000.0   900000.0    890000    910000        100.0  sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_ffma_ali…
     10.0          1000000        100    10000.0    10000.0      9000     11000         10.0  void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>>(int, T2, T3)
     xx.x          garbage
)";

TEST(ProfileSummaryReaderTest, ReadsTheKernelSummaryTableAndCountsABadRow) {
  ASSERT_EQ(SniffProfileSummary(kKernSum), SummaryTool::kNsysKernelSummary);
  StatusOr<ProfileSummary> s = ParseProfileSummary(kKernSum, "k.txt");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->kernels.size(), 2u);
  EXPECT_EQ(s->kernels[0].total_ns, 9000000);
  EXPECT_EQ(s->kernels[0].instances, 10);
  EXPECT_EQ(s->kernels[0].median_ns, 900000);
  EXPECT_EQ(s->kernels[0].max_ns, 910000);
  EXPECT_TRUE(s->kernels[0].name_cut);
  EXPECT_EQ(s->kernels[1].name,
            "void at::native::vectorized_elementwise_kernel<(int)4, "
            "at::native::CUDAFunctor_add<float>>(int, T2, T3)");
  EXPECT_FALSE(s->kernels[1].name_cut);
  EXPECT_EQ(s->problems.Get(DataProblem::kUnparsedLine), 1);
  EXPECT_NE(s->problems.Detail(DataProblem::kUnparsedLine).find("k.txt: line 10:"),
            std::string_view::npos)
      << s->problems.Describe();
}

TEST(ProfileSummaryReaderTest, NvtxNamedRowsSplitTheRangeOff) {
  std::string text(kKernSum);
  text.replace(text.find("cuda_gpu_kern_sum.py]"), 21, "cuda_gpu_kern_sum.py](nvtx-name:base)");
  text.replace(text.find("sm80_xmma"), 9, "forward/sm80_xmma");
  StatusOr<ProfileSummary> s = ParseProfileSummary(text, "k.txt");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->kernels[0].range, "forward");
  EXPECT_TRUE(s->kernels[0].name.starts_with("sm80_xmma")) << s->kernels[0].name;
}

TEST(ProfileSummaryReaderTest, AReportWithoutItsTableIsAnErrorNamingTheFile) {
  std::string cut(kKernSum.substr(0, kKernSum.find(" Time (%)")));
  cut += " Total Time (ns) nothing below\n";
  StatusOr<ProfileSummary> s = ParseProfileSummary(cut, "cut.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cut.txt: no cuda_gpu_kern_sum table"), std::string::npos)
      << s.status().message();
  EXPECT_FALSE(ParseProfileSummary("hello\n", "x.txt").ok());
  EXPECT_FALSE(SniffProfileSummary("Time,Value\n1,2\n").has_value());
}

constexpr std::string_view kDlprofSummary = R"(System Config
GPU Count,1
GPU Name(s),NVIDIA GeForce RTX 2070 SUPER
Framework,PyTorch 1.10.1+cu102
DLProf Version,v1.8.0

Summary Report
Wall Clock Time (ns),2864091540
GPU Utilization %,0.0
CPU Duration %,78.9

Iterations
Total Iterations,1

All Ops
,GPU Time (ns),CPU Time (ns),# Ops
All ops,339839,2258878205,32
Ops eligible for TC but not using,308255,3412879,5

All Kernels
,GPU Time (ns),CPU Time (ns),# Kernels
All kernels,352000,450049,28
Kernels using TC,0,0,0
)";

TEST(ProfileSummaryReaderTest, ReadsDlprofTotals) {
  ASSERT_EQ(SniffProfileSummary(kDlprofSummary), SummaryTool::kDlprofSummary);
  StatusOr<ProfileSummary> s = ParseProfileSummary(kDlprofSummary, "s.csv");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->dlprof.has_value());
  const DlprofTotals& t = *s->dlprof;
  EXPECT_EQ(t.gpu_name, "NVIDIA GeForce RTX 2070 SUPER");
  EXPECT_EQ(t.iterations, 1);
  EXPECT_EQ(t.wall_ns, 2864091540);
  EXPECT_EQ(t.kernel_ns, 352000);
  EXPECT_EQ(t.kernel_count, 28);
  EXPECT_EQ(t.tc_kernel_ns, 0);
  EXPECT_EQ(t.tc_eligible_unused_ns, 308255);
  EXPECT_EQ(t.op_cpu_ns, 2258878205);
  EXPECT_DOUBLE_EQ(t.cpu_duration_pct.value_or(-1), 78.9);
}

TEST(ProfileSummaryReaderTest, ReadsDlprofKernelRowsWithTheirTensorCoreFlag) {
  std::string text =
      "Kernel Report\nKernel Name,Op ID,Op Name,Direction,Uses TC,Total GPU Time (ns),Avg GPU "
      "Time (ns),Min GPU Time (ns),Max GPU Time (ns)\n"
      "\"volta_sgemm_128x64_nn\",\"LINEAR_1\",\"/m/linear\",fprop,no,3000,1000.0,900,1100\n"
      "\"volta_h884gemm\",\"LINEAR_2\",\"/m/linear\",fprop,yes,500,500.0,500,500\n"
      "\"broken\",\"X\"\n";
  ASSERT_EQ(SniffProfileSummary(text), SummaryTool::kDlprofKernels);
  StatusOr<ProfileSummary> s = ParseProfileSummary(text, "k.csv");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->kernels.size(), 2u);
  EXPECT_EQ(s->kernels[0].instances, 3);
  EXPECT_EQ(s->kernels[0].uses_tensor_cores, false);
  EXPECT_EQ(s->kernels[1].uses_tensor_cores, true);
  EXPECT_EQ(s->problems.Get(DataProblem::kUnparsedLine), 1);
}

// Every real report reads without a lost row.
TEST(ProfileSummaryReaderTest, EveryRealSummaryReads) {
  fs::path dir = fs::path(GPUWHY_SHARED_DATA) / "nsys_stats";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared/data/nsys_stats is absent";
  size_t read = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string path = entry.path().string();
    bool summary = path.ends_with("_kern_sum.txt") || path.ends_with("_kern_sum_nvtx.txt") ||
                   path.ends_with("dlprof_summary.csv") || path.ends_with("dlprof_kernel.csv");
    if (!summary) continue;
    StatusOr<ProfileSummary> s = ReadProfileSummary(path);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_TRUE(s->problems.empty()) << path << ": " << s->problems.Describe();
    EXPECT_TRUE(!s->kernels.empty() || s->dlprof.has_value()) << path;
    ++read;
  }
  EXPECT_EQ(read, 8u);
}

}  // namespace profile_summary_reader_test
}  // namespace gpuwhy
