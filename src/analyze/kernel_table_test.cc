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

// The families the data of issue 37's batch added (hipBLASLt, MIOpen, CK/ck_tile, aiter,
// cuBLAS/cuDNN legacy fp16, at::native GroupNorm/top-k/triangular kernels, Inductor names listing
// attention or norm ops), each in variants the data lacks: other types, shapes and directions.
TEST(KernelTable, NewFamiliesByTheirNamingScheme) {
  struct Case {
    const char* name;
    const char* want;
  };
  const Case cases[] = {
      {"Cijk_Alik_Bljk_H_HS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1_SN_LDSB1_AFC1",
       "gemm/fp16/tensor"},
      {"Cijk_Ailk_Bjlk_S_B_Bias_HA_S_SAV_UserArgs_MT64x64x16_MI32x32x2_SN_LDSB1",
       "gemm/fp32/tensor"},
      {"Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1", "gemm/bf16/tensor"},
      {"Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_GRVW4", "gemm/fp32/simt"},
      {"MIOpenBatchNormFwdInferSpatialEst", "normalization/unknown/simt"},
      {"MIOpenBatchNormBwdPerActivationSaved", "normalization/unknown/simt"},
      {"Im3d2Col", "convolution/unknown/simt"},
      {"Im2d2Col", "convolution/unknown/simt"},
      {"_5x_cudnn_volta_fp16_scudnn_fp16_128x64_relu_interior_nn_v1", "convolution/fp16/simt"},
      {"turing_fp16_s1688gemm_fp16_64x128_sliced1x2_ldg8_relu_f2f_tn", "gemm/fp16/tensor"},
      {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", "gemm/fp16/tensor"},
      {"ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nt", "gemm/fp16/tensor"},
      {"ampere_fp16_sgemm_fp16_128x64_nn", "gemm/fp16/simt"},
      {"void "
       "cutlass::Kernel2<cutlass_75_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_nn_align8>("
       "cutlass_75_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_nn_align8::Params)",
       "gemm/fp16/tensor"},
      {"_ZN2ck16tensor_operation6device12_GLOBAL__N_137kernel_grouped_conv_bwd_weight_xdl_"
       "cshuffleINS_35GridwiseGemm_bk0mk1_bk0nk1_mn_xdlopsIDF16_DF16_",
       "convolution/fp16/tensor"},
      {"_ZN7ck_tile6kentryILi2ENS_13FmhaFwdKernelINS_25BlockFmhaPipelineQRKSVSAsyncINS_"
       "24BlockFmhaPipelineProblemIDF16_DF16_DF16_fffDF16_",
       "attention/fp16/tensor"},
      {"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_"
       "40BlockFmhaBatchPrefillPipelineQRKSVSAsyncIDF16bDF16bDF16bff",
       "attention/bf16/tensor"},
      {"aiter::fmha_bwd_hd128_bf16_a32_psskddv", "attention/bf16/tensor"},
      {"aiter::fmha_fwd_hd64_fp16_rtne", "attention/fp16/tensor"},
      {"void gemv2T_kernel_val<int, int, __half, __half, float, 128, 16, 4, 4, false, "
       "false>(cublasGemvParams<cublasGemvTensorStridedBatched<__half const>>)",
       "gemm/fp16/simt"},
      {"void cudnn::bn_fw_inf_1C11_kernel_NHWC<__half, float, true, 1>(float, float, "
       "cudnnTensorStruct, __half const*)",
       "normalization/fp16/simt"},
      {"void at::native::(anonymous "
       "namespace)::Compute1dBackwardFusedParamsCUDAKernel<c10::BFloat16, float>(long, long, "
       "c10::BFloat16 const*)",
       "normalization/bf16/simt"},
      {"void at::native::(anonymous namespace)::ComputeFusedParamsCUDAKernel<c10::Half>(long, "
       "long, long, c10::Half const*)",
       "normalization/fp16/simt"},
      {"void (anonymous namespace)::groupnorm_kernel_dispatch_down<__half, 512u>(unsigned int, "
       "unsigned int, long, float, bool)",
       "normalization/fp16/simt"},
      {"void at::native::elementwise_kernel_manual_unroll<128, 4, "
       "at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
       "namespace)::GroupNormKernelImplInternal<c10::Half>(at::Tensor const&)::{lambda(c10::Half, "
       "float, float)#1}>",
       "normalization/fp16/simt"},
      {"triton_red_fused_native_layer_norm_0", "reduction/unknown/simt"},
      {"triton_per_fused_native_group_norm_relu_1", "reduction/unknown/simt"},
      {"triton_poi_fused_flash_attn_rotary_emb_2", "elementwise/unknown/simt"},
      {"triton_poi_fused_addmm_relu_5", "elementwise/unknown/simt"},
      {"triton_tem_fused_addmm_gelu_0", "gemm/unknown/tensor"},
      {"void at::native::sbtopk::gatherTopK<c10::Half, unsigned int, 1, "
       "true>(at::cuda::detail::TensorInfo<c10::Half const, unsigned int>)",
       "reduction/fp16/simt"},
      {"void at::native::mbtopk::gatherTopK<float, unsigned int, "
       "2>(at::cuda::detail::TensorInfo<float const, unsigned int>)",
       "reduction/fp32/simt"},
      {"void at::native::triu_tril_kernel<c10::BFloat16, long, true, 4, "
       "false>(at::cuda::detail::TensorInfo<c10::BFloat16, long>)",
       "elementwise/bf16/simt"},
      {"void at::native::triu_indices_kernel<long>(long*, long, long, long, long, long)",
       "elementwise/unknown/simt"},
      {"at::native::amp_update_scale_cuda_kernel(float*, int*, float const*, double, double, int)",
       "other/fp32/simt"},
      {"compute_position_striped_kernel", "other/unknown/simt"},
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, "
       "std::array<char*, 2ul> >",
       "elementwise/fp16/simt"},
      {"void at::native::vectorized_elementwise_kernel<4, "
       "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, "
       "std::array<char*, 2ul> >",
       "elementwise/bf16/simt"},
      {"fused__autocast_to__9912873465", "elementwise/unknown/simt"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Got(DescribeKernel(GpuOpKind::kKernel, c.name)), c.want) << c.name;
  }
}

// Issue 37: classifying a name reads ClassifiedPart(name) only, so its cost is bounded by a
// constant; the bound cannot change a real answer while every labelled name is read whole.
TEST(KernelTable, EveryLabelledNameIsReadWhole) {
  const std::string path = std::string(GPUWHY_SOURCE_DIR) + "/tests/data/kernel_classes.tsv";
  std::vector<Expected> rows = ReadLabels(path);
  ASSERT_GT(rows.size(), 500u) << path;
  for (const Expected& e : rows) {
    EXPECT_LT(e.name.size(), kClassifiedNameBytes)
        << "raise kClassifiedNameBytes or show the longer name's class words open it: "
        << e.name.substr(0, 160);
  }
}

std::string Repeated(std::string head, std::string_view unit, size_t bytes) {
  while (head.size() < bytes) head += unit;
  return head;
}

TEST(KernelTable, MultiMegabyteNamesAreReadOnTheirHead) {
  constexpr size_t kEightMb = size_t{8} << 20;
  // Megabytes of template arguments after a recognisable head: the head decides.
  const std::string fill =
      Repeated("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>",
               ", at::native::FillFunctor<float>", kEightMb);
  EXPECT_EQ(Got(DescribeKernel(GpuOpKind::kKernel, fill)), "elementwise/fp32/simt");
  EXPECT_EQ(ClassifyHtaType(GpuOpKind::kKernel, fill), HtaKernelType::kComputation);
  EXPECT_EQ(LowPrecisionOfKernel(fill), LowPrecisionSupport::kUnknown);
  const std::string nccl = Repeated("ncclDevKernel_AllReduce_Sum_f32_RING_LL(", "x", kEightMb);
  EXPECT_EQ(Got(DescribeKernel(GpuOpKind::kKernel, nccl)), "communication/fp32/simt");
  // The two rewrites the classifier makes (FBGEMM's library name, vLLM's unused fp8 cache type)
  // once restarted at the name's start for every occurrence.
  const std::string kv = Repeated("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, ",
                                  "(vllm::Fp8KVCacheDataType)0, ", kEightMb);
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kKernel, kv), KernelClass::kElementwise);
  const std::string fb = Repeated("void fbgemm_gpu::", "fbgemm_gpu::", kEightMb);
  EXPECT_FALSE(DescribeKernel(GpuOpKind::kKernel, fb).recognised);
  // A class word past the bound is not read; the same word inside it is.
  const std::string padding(kClassifiedNameBytes, 'a');
  EXPECT_FALSE(DescribeKernel(GpuOpKind::kKernel, "my_kernel_" + padding + "_gemm").recognised);
  EXPECT_EQ(ClassifyKernel(GpuOpKind::kKernel, "my_kernel_" + padding.substr(100) + "_gemm"),
            KernelClass::kGemm);
  EXPECT_EQ(LowPrecisionOfKernel(Repeated("sm80_xmma_gemm_bf16bf16_", "x", kEightMb)),
            LowPrecisionSupport::kBf16AndTf32);
  EXPECT_EQ(LowPrecisionOfKernel(Repeated("", "x", kEightMb) + "sm80_"),
            LowPrecisionSupport::kUnknown);
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
