// What a kernel's name says it does: its class, the data type of its math and whether that math
// runs on matrix units (tensor cores, MFMA) or on the SIMT cores. One ordered table of name
// patterns decides (kernel_table.cc); ClassifyKernel, UsesTensorCores and ClassifyHtaType read it.
#pragma once

#include <cstddef>
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

// Kernel names are read on their first kClassifiedNameBytes bytes only, so classifying a name
// costs at most a constant (issue 37: three 60 MB names took 99 s when every one of the table's
// terms scanned the whole name). The bound changes no real answer: the words the table reads
// (library namespace, kernel name, the template's leading types, "sm80_"-style architecture
// prefixes) open a demangled name, and what follows them is more template arguments and the
// parameter list. The longest of the 992 kernel names of ../shared/data is 5,160 bytes, a third
// of the bound; kernel_table_test fails if a labelled name ever reaches it.
inline constexpr size_t kClassifiedNameBytes = 16 * 1024;
// The part of a kernel name the kernel table and LowPrecisionOfKernel read.
inline std::string_view ClassifiedPart(std::string_view kernel_name) {
  return kernel_name.substr(0, kClassifiedNameBytes);
}

// Reads ClassifiedPart(name) only.
KernelInfo DescribeKernel(GpuOpKind kind, std::string_view name);

std::string_view KernelDtypeName(KernelDtype d);
std::string_view MathPathName(MathPath m);

// GEMM or convolution on the SIMT cores in fp32 (sgemm, scudnn, ffma, f32 templates): the time
// tensor cores (TF32/BF16) could speed up. Unrecognised kernels are never counted.
bool IsFp32SimtMatmul(const KernelInfo& info);

}  // namespace gpuwhy
