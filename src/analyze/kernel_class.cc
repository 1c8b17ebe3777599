#include "analyze/kernel_class.h"

#include "analyze/kernel_table.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace gpuwhy {
namespace {

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

// HTA's three types, from the table: its communication rows (NCCL, RCCL, DeepEP, NVSHMEM,
// multimem, custom all-reduce) are what the overlap and exposed-communication analyses see.
HtaKernelType ClassifyHtaType(GpuOpKind kind, std::string_view name) {
  KernelClass c = DescribeKernel(kind, name).kernel_class;
  if (c == KernelClass::kCommunication) return HtaKernelType::kCommunication;
  if (kind != GpuOpKind::kKernel || c == KernelClass::kCopy) return HtaKernelType::kMemory;
  return HtaKernelType::kComputation;
}

KernelClass ClassifyKernel(GpuOpKind kind, std::string_view name) {
  return DescribeKernel(kind, name).kernel_class;
}

bool UsesTensorCores(std::string_view name) {
  return DescribeKernel(GpuOpKind::kKernel, name).math == MathPath::kTensorCore;
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
  // The architecture prefix opens the name; a bounded read keeps per-launch calls constant-cost.
  name = ClassifiedPart(name);
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
