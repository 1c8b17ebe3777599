#include "ingest/kineto/kineto_categories.h"

#include "base/time.h"

namespace gpuwhy {

CategoryInfo ClassifyCategory(std::string_view cat) {
  struct Entry {
    std::string_view name;
    KinetoCategory category;
    bool legacy;
  };
  static constexpr Entry kEntries[] = {
      {"kernel", KinetoCategory::kKernel, false},
      {"cpu_op", KinetoCategory::kCpuOp, false},
      {"cuda_runtime", KinetoCategory::kRuntime, false},
      {"python_function", KinetoCategory::kPython, false},
      {"gpu_memcpy", KinetoCategory::kMemcpy, false},
      {"gpu_memset", KinetoCategory::kMemset, false},
      {"user_annotation", KinetoCategory::kUserAnnotation, false},
      {"gpu_user_annotation", KinetoCategory::kGpuUserAnnotation, false},
      {"cuda_driver", KinetoCategory::kDriver, false},
      {"cuda_sync", KinetoCategory::kCudaSync, false},
      {"Trace", KinetoCategory::kProfilerSpan, false},
      {"cuda_profiler_range", KinetoCategory::kProfilerSpan, false},
      // MTIA: runtime calls on the host, command-processor events on the device.
      {"mtia_runtime", KinetoCategory::kRuntime, false},
      {"mtia_ccp_events", KinetoCategory::kKernel, false},
      // 2021-era spellings.
      {"Kernel", KinetoCategory::kKernel, true},
      {"Operator", KinetoCategory::kCpuOp, true},
      {"Runtime", KinetoCategory::kRuntime, true},
      {"Memcpy", KinetoCategory::kMemcpy, true},
      {"Memset", KinetoCategory::kMemset, true},
      {"Python", KinetoCategory::kPython, true},
      {"Driver", KinetoCategory::kDriver, true},
      {"User annotation", KinetoCategory::kUserAnnotation, true},
  };
  for (const Entry& e : kEntries) {
    if (e.name == cat) return {e.category, e.legacy};
  }
  return {KinetoCategory::kUnknown, false};
}

CpuSliceKind CpuSliceKindOf(KinetoCategory category) {
  switch (category) {
    case KinetoCategory::kRuntime: return CpuSliceKind::kRuntime;
    case KinetoCategory::kDriver: return CpuSliceKind::kDriver;
    case KinetoCategory::kCpuOp: return CpuSliceKind::kOp;
    case KinetoCategory::kPython: return CpuSliceKind::kPython;
    case KinetoCategory::kUserAnnotation: return CpuSliceKind::kUserAnnotation;
    default: return CpuSliceKind::kOther;
  }
}

namespace {

MemoryKind ParseMemoryKind(std::string_view word) {
  if (word == "Pageable") return MemoryKind::kPageable;
  if (word == "Pinned") return MemoryKind::kPinned;
  if (word == "Device") return MemoryKind::kDevice;
  if (word == "Array") return MemoryKind::kArray;
  if (word == "Managed") return MemoryKind::kManaged;
  return MemoryKind::kUnknown;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

void ParseMemcpyName(std::string_view name, CopyDirection& direction, MemoryKind& src,
                     MemoryKind& dst) {
  direction = CopyDirection::kUnknown;
  src = dst = MemoryKind::kUnknown;
  if (name.find("HtoD") != std::string_view::npos)
    direction = CopyDirection::kHostToDevice;
  else if (name.find("DtoH") != std::string_view::npos)
    direction = CopyDirection::kDeviceToHost;
  else if (name.find("DtoD") != std::string_view::npos)
    direction = CopyDirection::kDeviceToDevice;
  else if (name.find("HtoH") != std::string_view::npos)
    direction = CopyDirection::kHostToHost;
  else if (name.find("PtoP") != std::string_view::npos)
    direction = CopyDirection::kPeerToPeer;
  size_t open = name.find('(');
  size_t arrow = name.find("->", open == std::string_view::npos ? 0 : open);
  size_t close = name.find(')', arrow == std::string_view::npos ? 0 : arrow);
  if (open == std::string_view::npos || arrow == std::string_view::npos ||
      close == std::string_view::npos)
    return;
  src = ParseMemoryKind(Trim(name.substr(open + 1, arrow - open - 1)));
  dst = ParseMemoryKind(Trim(name.substr(arrow + 2, close - arrow - 2)));
}

bool ParseProfilerStep(std::string_view name, int64_t& number) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  auto parsed = ParseExactInt(name.substr(kPrefix.size()));
  if (!parsed) return false;
  number = *parsed;
  return true;
}

}  // namespace gpuwhy
