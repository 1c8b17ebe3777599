// What each Kineto category means, for both schema generations.
#pragma once

#include <string_view>

#include "model/tables.h"

namespace gpuwhy {

enum class KinetoCategory {
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,
  kDriver,
  kCpuOp,
  kPython,
  kUserAnnotation,
  kGpuUserAnnotation,
  kCudaSync,
  kProfilerSpan,  // "Trace", cuda_profiler_range: profiler bookkeeping spans
  kUnknown,
};

struct CategoryInfo {
  KinetoCategory category;
  bool legacy_spelling;  // "Kernel", "Runtime", "Operator", ... (2021-era schema)
};

CategoryInfo ClassifyCategory(std::string_view cat);

// The host-slice kind of a host-side category (runtime, driver, op, python, annotation, span).
CpuSliceKind CpuSliceKindOf(KinetoCategory category);

// "Memcpy HtoD (Pageable -> Device)" → direction and memory kinds.
void ParseMemcpyName(std::string_view name, CopyDirection& direction, MemoryKind& src,
                     MemoryKind& dst);

// "ProfilerStep#12" → 12; false for other names.
bool ParseProfilerStep(std::string_view name, int64_t& number);

}  // namespace gpuwhy
