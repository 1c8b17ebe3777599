#include "analyze/kernel_class.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace gpuwhy {
namespace {

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// Case-insensitive search without allocating for the common case of short needles.
bool ContainsNoCase(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) ==
                                 std::tolower(static_cast<unsigned char>(b));
                        });
  return it != haystack.end();
}

template <size_t N>
bool ContainsAnyNoCase(std::string_view name, const std::array<std::string_view, N>& needles) {
  for (std::string_view n : needles) {
    if (ContainsNoCase(name, n)) return true;
  }
  return false;
}

}  // namespace

HtaKernelType ClassifyHtaType(GpuOpKind kind, std::string_view name) {
  if (ContainsNoCase(name, "nccl") || ContainsNoCase(name, "rccl"))
    return HtaKernelType::kCommunication;
  if (kind != GpuOpKind::kKernel || Contains(name, "Memcpy") || Contains(name, "Memset")) {
    return HtaKernelType::kMemory;
  }
  return HtaKernelType::kComputation;
}

KernelClass ClassifyKernel(GpuOpKind kind, std::string_view name) {
  if (kind != GpuOpKind::kKernel) return KernelClass::kCopy;
  static constexpr std::array<std::string_view, 3> kComm = {"nccl", "rccl", "all_reduce"};
  static constexpr std::array<std::string_view, 6> kAttention = {"flash", "fmha", "attention",
                                                                 "attn",  "sdpa", "mha_"};
  static constexpr std::array<std::string_view, 7> kConv = {
      "conv", "wgrad", "dgrad", "implicit_gemm", "winograd", "fprop", "cudnn::detail::"};
  static constexpr std::array<std::string_view, 9> kGemm = {
      "gemm", "gemv", "matmul", "xmma", "cutlass", "sgemm", "hgemm", "mma_", "nvjet"};
  static constexpr std::array<std::string_view, 7> kNorm = {
      "norm", "bn_fw", "bn_bw", "batch_norm", "layer_norm", "rms", "welford"};
  static constexpr std::array<std::string_view, 6> kReduce = {"reduce", "softmax", "sum_kernel",
                                                              "argmax", "scan",    "cross_entropy"};
  static constexpr std::array<std::string_view, 7> kElementwise = {
      "elementwise", "vectorized", "unrolled_elementwise", "triton_poi", "fill",
      "copy_kernel", "index"};
  if (ContainsAnyNoCase(name, kComm)) return KernelClass::kCommunication;
  if (ContainsAnyNoCase(name, kAttention)) return KernelClass::kAttention;
  if (ContainsAnyNoCase(name, kConv)) return KernelClass::kConvolution;
  if (ContainsAnyNoCase(name, kGemm)) return KernelClass::kGemm;
  if (ContainsAnyNoCase(name, kNorm)) return KernelClass::kNormalization;
  if (ContainsAnyNoCase(name, kReduce) || ContainsNoCase(name, "triton_red") ||
      ContainsNoCase(name, "triton_per")) {
    return KernelClass::kReduction;
  }
  if (ContainsAnyNoCase(name, kElementwise)) return KernelClass::kElementwise;
  if (ContainsNoCase(name, "memcpy") || ContainsNoCase(name, "memset")) return KernelClass::kCopy;
  return KernelClass::kOther;
}

bool UsesTensorCores(std::string_view name) {
  // cuBLAS names its CUDA-core fp32 kernels by the FFMA instruction they run, also inside the
  // xmma/sm90 families ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_..._ffma_..."): no tensor cores
  // unless the name also says a tensor-core type.
  static constexpr std::array<std::string_view, 6> kTensorTypes = {"hmma", "tf32", "bf16",
                                                                   "fp16", "f16",  "tensorop"};
  if (ContainsNoCase(name, "ffma") && !ContainsAnyNoCase(name, kTensorTypes)) return false;
  static constexpr std::array<std::string_view, 14> kPatterns = {
      "hmma", "xmma",   "wgmma", "mma_", "tensorop", "_tf32", "bf16",
      "fp16", "f16f16", "884",   "1688", "16816",    "sm90_", "nvjet"};
  if (ContainsAnyNoCase(name, kPatterns)) return true;
  // Volta-era cuDNN/cuBLAS tensor-core kernels: "volta_h884gemm", "volta_fp16_s884cudnn".
  return ContainsNoCase(name, "s884") || ContainsNoCase(name, "h884") ||
         ContainsNoCase(name, "i8816");
}

bool IsTensorCoreEligible(KernelClass c) {
  return c == KernelClass::kGemm || c == KernelClass::kConvolution || c == KernelClass::kAttention;
}

LowPrecisionSupport LowPrecisionOfDevice(std::string_view name) {
  // Volta (V100, TITAN V) and Turing (T4, RTX 20xx, Quadro RTX, TITAN RTX): fp16 only.
  static constexpr std::array<std::string_view, 6> kFp16Only = {
      "V100", "TITAN V", "T4", "RTX 20", "Quadro RTX", "TITAN RTX"};
  static constexpr std::array<std::string_view, 14> kBf16 = {
      "A100",   "A800",  "A10", "A30",  "A40",  "RTX 30", "RTX 40",
      "RTX 50", "RTX A", "L4",  "H100", "H200", "H800",   "B200"};
  for (std::string_view n : kFp16Only) {
    if (ContainsNoCase(name, n)) return LowPrecisionSupport::kFp16Only;
  }
  for (std::string_view n : kBf16) {
    if (ContainsNoCase(name, n)) return LowPrecisionSupport::kBf16AndTf32;
  }
  if (ContainsNoCase(name, "GH200") || ContainsNoCase(name, "GB200"))
    return LowPrecisionSupport::kBf16AndTf32;
  return LowPrecisionSupport::kUnknown;
}

LowPrecisionSupport LowPrecisionOfKernel(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kAmpereOrLater = {
      "sm80_", "sm86_", "sm89_", "sm90_", "sm100_", "ampere_", "hopper_", "nvjet"};
  if (ContainsAnyNoCase(name, kAmpereOrLater)) return LowPrecisionSupport::kBf16AndTf32;
  // cuBLAS/cuDNN kernels built for Volta or Turing ("volta_sgemm" runs on both): fp16 only,
  // unless another kernel of the trace names a later architecture (TraceLowPrecision).
  static constexpr std::array<std::string_view, 2> kVoltaTuring = {"volta_", "turing_"};
  return ContainsAnyNoCase(name, kVoltaTuring) ? LowPrecisionSupport::kFp16Only
                                               : LowPrecisionSupport::kUnknown;
}

std::string_view KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kGemm: return "gemm";
    case KernelClass::kConvolution: return "convolution";
    case KernelClass::kAttention: return "attention";
    case KernelClass::kElementwise: return "elementwise";
    case KernelClass::kReduction: return "reduction";
    case KernelClass::kNormalization: return "normalization";
    case KernelClass::kCommunication: return "communication";
    case KernelClass::kCopy: return "copy";
    case KernelClass::kOther: return "other";
  }
  return "?";
}

std::string_view HtaKernelTypeName(HtaKernelType t) {
  switch (t) {
    case HtaKernelType::kCommunication: return "COMMUNICATION";
    case HtaKernelType::kMemory: return "MEMORY";
    case HtaKernelType::kComputation: return "COMPUTATION";
  }
  return "?";
}

}  // namespace gpuwhy
