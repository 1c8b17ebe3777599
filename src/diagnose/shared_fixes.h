// Fixes shared by the launch and compute rules' specs and by the summary rules, which evaluate
// the same findings on a profiler's totals (in the shared core: no kind includes another's).
#pragma once

#include <vector>

#include "analyze/kernel_class.h"
#include "diagnose/finding.h"

namespace gpuwhy {

inline const Fix kCompileFix = {"Fuse kernels and cut launch cost with torch.compile",
                                "model = torch.compile(model, mode=\"reduce-overhead\")"};
inline const Fix kCudaGraphFix = {"Capture the static part of the step in a CUDA graph",
                                  "g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): out = "
                                  "model(static_x)  # then g.replay()"};

// compute.no_tensor_cores' fixes for the GPU at hand: bf16 and TF32 need Ampere or later;
// Volta and Turing get fp16 with loss scaling; an unknown GPU gets both, each with its need.
inline std::vector<Fix> TensorCoreFixes(LowPrecisionSupport support) {
  const Fix bf16 = {"Train in bf16 mixed precision",
                    "with torch.autocast('cuda', dtype=torch.bfloat16): loss = model(x)",
                    FixNeeds{.bf16 = true, .fp32_math = true}};
  const Fix tf32 = {"Allow TF32 on Ampere and later",
                    "torch.backends.cuda.matmul.allow_tf32 = True; "
                    "torch.backends.cudnn.allow_tf32 = True",
                    FixNeeds{.vendor = GpuVendor::kNvidia, .bf16 = true, .fp32_math = true}};
  const Fix fp16 = {
      "Train in fp16 mixed precision with loss scaling (this GPU has fp16 tensor "
      "cores, not bf16 or TF32)",
      "scaler = torch.cuda.amp.GradScaler(); with torch.autocast('cuda', "
      "dtype=torch.float16): loss = model(x); scaler.scale(loss).backward()",
      FixNeeds{.fp32_math = true}};
  const Fix fp16_if_older = {
      "On Volta or Turing (no bf16 or TF32): fp16 mixed precision with "
      "loss scaling",
      fp16.code, FixNeeds{.fp32_math = true}};
  const Fix cudnn = {"Let cuDNN pick the fastest convolution for fixed shapes",
                     "torch.backends.cudnn.benchmark = True"};
  switch (support) {
    case LowPrecisionSupport::kFp16Only: return {fp16, cudnn};
    case LowPrecisionSupport::kBf16AndTf32: return {bf16, tf32, cudnn};
    case LowPrecisionSupport::kUnknown: break;
  }
  return {bf16, tf32, fp16_if_older, cudnn};
}

}  // namespace gpuwhy
