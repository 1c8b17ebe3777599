// The kernel table against tests/data/kernel_classes.tsv (every kernel name of ../shared/data,
// labelled by reading the names) and against modern names the data lacks.
#include "analyze/kernel_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpuwhy {
namespace {

struct Expected {
  std::string cls, dtype, math, name;
};

std::vector<Expected> ReadLabels(const std::string& path) {
  std::vector<Expected> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    size_t at = 0;
    for (int i = 0; i < 4; ++i) {
      size_t tab = line.find('\t', at);
      if (tab == std::string::npos) break;
      cols.push_back(line.substr(at, tab - at));
      at = tab + 1;
    }
    if (cols.size() != 4) continue;
    rows.push_back({cols[0], cols[1], cols[2], line.substr(at)});  // cols[3] is the note
  }
  return rows;
}

std::string Got(const KernelInfo& k) {
  std::string cls = k.recognised ? std::string(KernelClassName(k.kernel_class)) : "unknown";
  return cls + "/" + std::string(KernelDtypeName(k.dtype)) + "/" +
         std::string(MathPathName(k.math));
}

TEST(KernelTable, EveryNameOfTheDataGetsItsLabel) {
  const std::string path = std::string(GPUWHY_SOURCE_DIR) + "/tests/data/kernel_classes.tsv";
  std::vector<Expected> rows = ReadLabels(path);
  ASSERT_GT(rows.size(), 500u) << path;
  std::string mismatches;
  int bad = 0;
  for (const Expected& e : rows) {
    std::string want = e.cls + "/" + e.dtype + "/" + e.math;
    std::string got = Got(DescribeKernel(GpuOpKind::kKernel, e.name));
    if (got == want) continue;
    ++bad;
    mismatches += "\n  want " + want + " got " + got + ": " + e.name.substr(0, 160);
  }
  EXPECT_EQ(bad, 0) << bad << " of " << rows.size()
                    << " names differ from their label:" << mismatches;
}

// Modern kernels the traces of ../shared/data lack (issue 16), named as their libraries name them.
TEST(KernelTable, ModernNames) {
  struct Case {
    const char* name;
    const char* want;
  };
  const Case cases[] = {
      {"nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", "gemm/unknown/tensor"},
      {"nvjet_sm100_qqtst_128x256_128x4_2x1_2cta_v_bz_Avec32UE8M0_Bvec32UE8M0_NNT",
       "gemm/unknown/tensor"},
      {"void cutlass::device_kernel<cutlass3x_sm100_tensorop_s128x256x64gemm_bf16_bf16_f32_bf16_"
       "bf16_128x256x64_1x1x1_0_tnn_align8_1sm>(Params)",
       "gemm/bf16/tensor"},
      {"sm100_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_tcgen05", "gemm/tf32/tensor"},
      {"void "
       "cutlass::device_kernel<cutlass3x_sm90_tensorop_gemm_e4m3_e4m3_f32_bf16_bf16_"
       "warpspecialized>",
       "gemm/fp8/tensor"},
      {"void deep_gemm::sm90_fp8_gemm_1d2d_impl<0u, 7168u, 128u>(__nv_bfloat16*, float*, int*, "
       "unsigned "
       "int)",
       "gemm/fp8/tensor"},
      {"void "
       "cutlass::device_kernel<cutlass3x_sm100_bstensorop_s256x256x64gemm_ue4m3xe2m1_ue4m3xe2m1_"
       "f32_bf16_bf16_nvfp4>",
       "gemm/fp4/tensor"},
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_128x256x128x1", "gemm/fp4/tensor"},
      {"triton_tem_fused_mm_0", "gemm/unknown/tensor"},
      {"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
       "cutlass::half_t>>",
       "attention/fp16/tensor"},
      {"void flash::FlashAttnBwdSm90<flash::CollectiveMainloopBwdSm90<cutlass::bfloat16_t>>",
       "attention/bf16/tensor"},
      {"triton_poi_fused_add_0", "elementwise/unknown/simt"},
      {"triton_red_fused_sum_1", "reduction/unknown/simt"},
      {"triton_per_fused__softmax_2", "reduction/unknown/simt"},
      {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8_SN_1LDSB1_GRVW8", "gemm/fp16/tensor"},
      {"Cijk_Alik_Bljk_F8B8S_BH_MT256x256x64_MI16x16x1_SN", "gemm/fp8/tensor"},
      {"_ZN2ck16tensor_operation6device29kernel_gemm_xdl_cshuffle_v3IDF16_DF16_",
       "gemm/fp16/tensor"},
      {"_ZN7ck_tile6kentryINS_10GemmKernelIDF16bDF16b", "gemm/bf16/tensor"},
      {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)",
       "communication/unknown/simt"},
      {"void deep_ep::internode_ll::combine<false, 1>(void*)", "communication/unknown/simt"},
      {"void deep_ep::intranode::notify_dispatch<8>(int const*, int*)",
       "communication/unknown/simt"},
      {"void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*)",
       "communication/bf16/simt"},
      {"void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*)",
       "communication/bf16/simt"},
      {"void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<half, 8>",
       "communication/fp16/simt"},
      {"nvshmemi_proxy_quiet_entrypoint", "communication/unknown/simt"},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       "communication/unknown/simt"},
      {"void cuComputeGradGammaBeta<float, float>(float const*, int, int, float*, float*)",
       "normalization/fp32/simt"},
      {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<c10::BFloat16, float>",
       "normalization/bf16/simt"},
      {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>",
       "normalization/fp32/simt"},
      {"volta_sgemm_128x64_nn", "gemm/fp32/simt"},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_ffma", "gemm/fp32/simt"},
      {"some_custom_kernel_we_cannot_read", "unknown/unknown/unknown"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Got(DescribeKernel(GpuOpKind::kKernel, c.name)), c.want) << c.name;
  }
}

TEST(KernelTable, UnknownLargeGemmIsNeverFp32Simt) {
  KernelInfo k = DescribeKernel(GpuOpKind::kKernel, "my_custom_gemm_kernel");
  EXPECT_EQ(k.kernel_class, KernelClass::kGemm);
  EXPECT_EQ(k.math, MathPath::kUnknown);
  EXPECT_FALSE(IsFp32SimtMatmul(k));
  EXPECT_FALSE(IsFp32SimtMatmul(DescribeKernel(GpuOpKind::kKernel, "Kernel")));
  EXPECT_TRUE(IsFp32SimtMatmul(DescribeKernel(GpuOpKind::kKernel, "ampere_sgemm_128x64_nn")));
  EXPECT_FALSE(IsFp32SimtMatmul(
      DescribeKernel(GpuOpKind::kKernel, "cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4")));
}

TEST(KernelTable, CopiesAreMemory) {
  KernelInfo k = DescribeKernel(GpuOpKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(k.kernel_class, KernelClass::kCopy);
  EXPECT_TRUE(k.recognised);
  EXPECT_EQ(ClassifyHtaType(GpuOpKind::kKernel, "void deep_ep::intranode::combine<8>(int4*)"),
            HtaKernelType::kCommunication);
  EXPECT_EQ(ClassifyHtaType(GpuOpKind::kKernel, "multimem_one_shot_all_reduce"),
            HtaKernelType::kCommunication);
}

}  // namespace
}  // namespace gpuwhy
