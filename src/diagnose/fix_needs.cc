#include "diagnose/fix_needs.h"

namespace gpuwhy {

std::string DescribeNeeds(const FixNeeds& n) {
  std::vector<std::string> parts;
  if (n.vendor != GpuVendor::kUnknown) parts.emplace_back(GpuVendorName(n.vendor));
  if (n.bf16) parts.emplace_back("a bf16-capable GPU (NVIDIA Ampere or later, AMD CDNA)");
  if (n.job != JobKind::kUnknown) parts.emplace_back(JobKindName(n.job));
  if (n.fp32_math) parts.emplace_back("matrix math still in fp32");
  if (n.adam_optimizer) parts.emplace_back("an Adam-family optimizer");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string ContradictedNeed(const FixNeeds& n, const JobFacts& f) {
  if (n.vendor != GpuVendor::kUnknown && f.vendor != GpuVendor::kUnknown &&
      f.vendor != GpuVendor::kNone && f.vendor != n.vendor) {
    return "the GPU is not " + std::string(GpuVendorName(n.vendor));
  }
  if (n.bf16 && f.tensor_cores == LowPrecisionSupport::kFp16Only) {
    return "the GPU has fp16 tensor cores only (Volta/Turing): no bf16 or TF32";
  }
  if (n.job != JobKind::kUnknown && f.kind != JobKind::kUnknown && f.kind != n.job) {
    return "the job is " + std::string(JobKindName(f.kind));
  }
  if (n.fp32_math && f.matmul_precision == MatmulPrecision::kLowPrecision) {
    return "the job already runs its matrix math in 16-bit or narrower types";
  }
  if (n.adam_optimizer) {
    if (f.kind == JobKind::kInference) return "the job is inference: no optimizer steps";
    if (f.optimizer == OptimizerKind::kOther) return "the optimizer is not of the Adam family";
  }
  return "";
}

}  // namespace gpuwhy
