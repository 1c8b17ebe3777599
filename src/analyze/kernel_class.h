// Kernel classification by name: HTA's three types and gpuwhy's finer classes, read from the
// kernel table (kernel_table.h), which also gives each kernel's dtype and math path.
#pragma once

#include <string_view>

#include "model/tables.h"

namespace gpuwhy {

// HolisticTraceAnalysis' kernel types (hta/utils/utils.py get_kernel_type).
enum class HtaKernelType { kCommunication, kMemory, kComputation };

enum class KernelClass {
  kGemm,
  kConvolution,
  kAttention,
  kElementwise,
  kReduction,
  kNormalization,
  kCommunication,
  kCopy,  // memcpy / memset ops and copy kernels
  kOther,
};

HtaKernelType ClassifyHtaType(GpuOpKind kind, std::string_view name);
KernelClass ClassifyKernel(GpuOpKind kind, std::string_view name);
std::string_view KernelClassName(KernelClass c);
std::string_view HtaKernelTypeName(HtaKernelType t);
// The kernel table (kernel_table.h) says its math runs on tensor cores or MFMA matrix cores.
bool UsesTensorCores(std::string_view name);
// GEMMs and convolutions could use tensor cores on Volta and later.
bool IsTensorCoreEligible(KernelClass c);

// Which low-precision tensor-core math the GPU has, for fixes that fit the hardware: Volta and
// Turing run fp16 (with loss scaling) but no bf16 or TF32; Ampere and later run bf16 and TF32.
enum class LowPrecisionSupport { kUnknown, kFp16Only, kBf16AndTf32 };
// From a device name ("Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-80GB", "GeForce RTX 2070").
LowPrecisionSupport LowPrecisionOfDevice(std::string_view device_name);
// From a kernel name compiled for one architecture ("sm80_xmma_…", "ampere_sgemm_…": Ampere or
// later; "volta_…", "turing_…": fp16 only, as both Volta and Turing are); kUnknown for others.
// A trace with both kinds ran on the later GPU (older kernels can run on newer ones). Reads
// ClassifiedPart(kernel_name) only (kernel_table.h), as it runs once per launch.
LowPrecisionSupport LowPrecisionOfKernel(std::string_view kernel_name);
// Of two kernels' answers, the later architecture's: kernels built for an older GPU run on a
// newer one, never the reverse, so a trace with Volta and Ampere kernels ran on Ampere.
inline LowPrecisionSupport LaterLowPrecision(LowPrecisionSupport a, LowPrecisionSupport b) {
  if (a == LowPrecisionSupport::kBf16AndTf32 || b == LowPrecisionSupport::kBf16AndTf32)
    return LowPrecisionSupport::kBf16AndTf32;
  return a != LowPrecisionSupport::kUnknown ? a : b;
}

}  // namespace gpuwhy
