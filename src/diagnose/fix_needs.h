// What a fix needs to apply, declared with the fix, and the one check that drops a fix whose
// needs the job's own facts contradict (docs/fix-preconditions.md). An unknown fact never
// contradicts: the fix stays, with its need said in the report.
#pragma once

#include <string>
#include <vector>

#include "analyze/job_facts.h"

namespace gpuwhy {

struct FixNeeds {
  GpuVendor vendor = GpuVendor::kUnknown;  // kUnknown: any vendor
  // bf16 (and, on NVIDIA, TF32) math: Ampere or later, or an AMD CDNA GPU. Volta and Turing
  // have fp16 tensor cores only.
  bool bf16 = false;
  JobKind job = JobKind::kUnknown;  // kUnknown: training and inference alike
  // Precision advice: the matrix math does not already run in 16-bit or narrower types.
  bool fp32_math = false;
  bool adam_optimizer = false;  // the job steps an Adam-family optimizer

  bool Any() const {
    return vendor != GpuVendor::kUnknown || bf16 || job != JobKind::kUnknown || fp32_math ||
           adam_optimizer;
  }
};

// The needs in words ("NVIDIA; bf16-capable GPU (Ampere or later, or AMD CDNA); training"),
// "" when the fix applies anywhere.
std::string DescribeNeeds(const FixNeeds& needs);

// The first need |facts| contradict, in words ("the job already runs its matrix math in
// 16-bit types"); "" when none does.
std::string ContradictedNeed(const FixNeeds& needs, const JobFacts& facts);

}  // namespace gpuwhy
