// What kind of job a trace holds, as far as its events say: training or inference, the
// precision its matrix math already runs in, the optimizer that steps and the GPU's generation.
// Fixes declare what they need (diagnose/fix_needs.h); these facts decide whether a fix can
// apply, so a fix is never printed where the trace shows it cannot (docs/fix-preconditions.md).
#pragma once

#include <string_view>

#include "analyze/kernel_class.h"
#include "model/trace.h"

namespace gpuwhy {

enum class JobKind { kUnknown, kTraining, kInference };
// An Adam-family optimizer (Adam, AdamW, FusedAdam, LAMB's Adam core) or another (SGD, Adagrad).
enum class OptimizerKind { kUnknown, kAdamFamily, kOther };
// The precision most of the matrix math (GEMM, convolution, attention kernel time) runs in.
enum class MatmulPrecision { kUnknown, kFp32, kLowPrecision };

struct JobFacts {
  GpuVendor vendor = GpuVendor::kUnknown;
  // NVIDIA tensor-core generation (from the device name or architecture-specific kernels).
  LowPrecisionSupport tensor_cores = LowPrecisionSupport::kUnknown;
  JobKind kind = JobKind::kUnknown;
  OptimizerKind optimizer = OptimizerKind::kUnknown;
  MatmulPrecision matmul_precision = MatmulPrecision::kUnknown;
  // Share of matrix-math kernel time in fp16/bf16/fp8/fp4/int8, in % (-1: no matrix math).
  double low_precision_matmul_pct = -1;
};

JobFacts ComputeJobFacts(const Trace& trace);

std::string_view JobKindName(JobKind k);
std::string_view OptimizerKindName(OptimizerKind k);
std::string_view MatmulPrecisionName(MatmulPrecision p);
std::string_view LowPrecisionSupportName(LowPrecisionSupport s);

}  // namespace gpuwhy
