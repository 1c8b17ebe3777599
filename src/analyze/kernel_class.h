// Kernel classification by name: HTA's three types and gpuwhy's finer classes.
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
// Name says it runs on tensor cores (HMMA/MMA/xmma/wgmma, *_tf32/bf16/fp16 GEMMs, ...).
bool UsesTensorCores(std::string_view name);
// GEMMs and convolutions could use tensor cores on Volta and later.
bool IsTensorCoreEligible(KernelClass c);

}  // namespace gpuwhy
