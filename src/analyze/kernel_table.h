// What a kernel's name says it does: its class, the data type of its math and whether that math
// runs on matrix units (tensor cores, MFMA) or on the SIMT cores. One ordered table of name
// patterns decides (kernel_table.cc); ClassifyKernel, UsesTensorCores and ClassifyHtaType read it.
#pragma once

#include <string_view>

#include "analyze/kernel_class.h"
#include "model/tables.h"

namespace gpuwhy {

// The lowest-precision operand type the name states; kUnknown where it states none.
enum class KernelDtype { kUnknown, kFp64, kFp32, kTf32, kFp16, kBf16, kFp8, kFp4, kInt8 };

// kTensorCore: NVIDIA tensor cores (HMMA/IMMA/wgmma/tcgen05) or AMD matrix cores (MFMA/xdlops).
enum class MathPath { kUnknown, kTensorCore, kSimt };

struct KernelInfo {
  KernelClass kernel_class = KernelClass::kOther;
  KernelDtype dtype = KernelDtype::kUnknown;
  MathPath math = MathPath::kUnknown;
  // False when no row of the table matched: the name is unrecognised, which is not the same as
  // a recognised small kernel of class "other", and never means fp32 without tensor cores.
  bool recognised = false;
};

KernelInfo DescribeKernel(GpuOpKind kind, std::string_view name);

std::string_view KernelDtypeName(KernelDtype d);
std::string_view MathPathName(MathPath m);

// GEMM or convolution on the SIMT cores in fp32 (sgemm, scudnn, ffma, f32 templates): the time
// tensor cores (TF32/BF16) could speed up. Unrecognised kernels are never counted.
bool IsFp32SimtMatmul(const KernelInfo& info);

}  // namespace gpuwhy
