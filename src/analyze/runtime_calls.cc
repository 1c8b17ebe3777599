#include "analyze/runtime_calls.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace gpuwhy {
namespace {

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Strips the runtime prefix: "cudaMemcpyAsync" -> "MemcpyAsync", "cuMemcpyHtoD_v2" ->
// "MemcpyHtoD_v2". Returns false for names from no GPU runtime.
bool StripApiPrefix(std::string_view name, std::string_view& rest) {
  for (std::string_view prefix : {"cuda", "hip", "cu"}) {
    if (name.starts_with(prefix)) {
      rest = name.substr(prefix.size());
      return true;
    }
  }
  return false;
}

}  // namespace

RuntimeCallKind ClassifyRuntimeCall(std::string_view name) {
  std::string_view rest;
  if (!StripApiPrefix(name, rest)) {
    // MTIA's launch call as HTA names it.
    if (name == "runFunction - job_prep_and_submit_for_execution") return RuntimeCallKind::kLaunch;
    return RuntimeCallKind::kOther;
  }
  if (rest.starts_with("GraphLaunch")) return RuntimeCallKind::kGraphLaunch;
  if (rest.starts_with("Launch") || rest.starts_with("ModuleLaunch") ||
      rest.starts_with("ExtModuleLaunch") || rest.starts_with("ExtLaunch")) {
    return RuntimeCallKind::kLaunch;
  }
  if (rest == "DeviceSynchronize" || rest == "CtxSynchronize" || rest == "ThreadSynchronize") {
    return RuntimeCallKind::kDeviceSync;
  }
  if (rest == "StreamSynchronize") return RuntimeCallKind::kStreamSync;
  if (rest == "EventSynchronize") return RuntimeCallKind::kEventSync;
  if (rest.starts_with("Memset")) {
    return Contains(rest, "Async") ? RuntimeCallKind::kLaunch : RuntimeCallKind::kSyncMemcpy;
  }
  if (rest.starts_with("Memcpy")) {
    // hipMemcpyWithStream enqueues on a stream but returns only when the copy is done.
    if (rest == "MemcpyWithStream") return RuntimeCallKind::kSyncMemcpy;
    return Contains(rest, "Async") ? RuntimeCallKind::kLaunch : RuntimeCallKind::kSyncMemcpy;
  }
  if (rest.starts_with("Malloc") || rest.starts_with("MemAlloc") || rest == "HostAlloc" ||
      rest.starts_with("HostMalloc") || rest.starts_with("ExtMallocWithFlags")) {
    return RuntimeCallKind::kAlloc;
  }
  if (rest.starts_with("Free") || rest.starts_with("MemFree") || rest.starts_with("HostFree")) {
    return RuntimeCallKind::kFree;
  }
  return RuntimeCallKind::kOther;
}

std::string_view RuntimeCallKindName(RuntimeCallKind kind) {
  switch (kind) {
    case RuntimeCallKind::kOther: return "other";
    case RuntimeCallKind::kLaunch: return "launch";
    case RuntimeCallKind::kGraphLaunch: return "graph_launch";
    case RuntimeCallKind::kDeviceSync: return "device_sync";
    case RuntimeCallKind::kStreamSync: return "stream_sync";
    case RuntimeCallKind::kEventSync: return "event_sync";
    case RuntimeCallKind::kSyncMemcpy: return "sync_memcpy";
    case RuntimeCallKind::kAlloc: return "alloc";
    case RuntimeCallKind::kFree: return "free";
  }
  return "?";
}

bool IsBlockingCallKind(RuntimeCallKind kind) {
  return kind == RuntimeCallKind::kDeviceSync || kind == RuntimeCallKind::kStreamSync ||
         kind == RuntimeCallKind::kEventSync || kind == RuntimeCallKind::kSyncMemcpy;
}

bool IsQueuedLaunch(RuntimeCallKind kind, std::string_view name) {
  return kind == RuntimeCallKind::kLaunch || kind == RuntimeCallKind::kGraphLaunch ||
         name == "hipMemcpyWithStream";
}

bool IsHtaLaunchStatsCall(std::string_view name) {
  return name == "cudaLaunchKernel" || name == "cudaLaunchKernelExC" || name == "cudaMemcpyAsync" ||
         name == "cudaMemsetAsync";
}

std::vector<RuntimeCallKind> ClassifyRuntimeCalls(const Trace& trace) {
  const CpuSliceTable& s = trace.cpu_slices;
  std::vector<RuntimeCallKind> kinds(s.size(), RuntimeCallKind::kOther);
  std::unordered_map<uint32_t, RuntimeCallKind> cache;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != CpuSliceKind::kRuntime && s.kind[i] != CpuSliceKind::kDriver) continue;
    auto it = cache.find(s.name[i].value);
    if (it == cache.end())
      it = cache.emplace(s.name[i].value, ClassifyRuntimeCall(trace.Str(s.name[i]))).first;
    kinds[i] = it->second;
  }
  return kinds;
}

HtaFilter MakeHtaFilter(const AnalysisInput& input) {
  HtaFilter filter;
  filter.active = input.options.drop_last_step;
  filter.cutoff = std::numeric_limits<TimeNs>::max();
  const StepTable& steps = input.trace.steps;
  if (!steps.synthesized && steps.size() >= 2) filter.cutoff = steps.rows.back().host_start;
  const CpuSliceTable& s = input.trace.cpu_slices;
  for (size_t i = 0; i < s.size() && !filter.has_launches; ++i) {
    filter.has_launches =
        (s.kind[i] == CpuSliceKind::kRuntime || s.kind[i] == CpuSliceKind::kDriver) &&
        s.correlation[i] != kNoValue;
  }
  return filter;
}

bool HtaFilter::GpuOpKept(const Trace& trace, size_t row) const {
  if (!active || !has_launches) return true;
  CpuSliceId launch = trace.FindLaunch(trace.gpu_ops.correlation[row]);
  return launch.valid() && trace.cpu_slices.start[launch.value] < cutoff;
}

int64_t StepIndexAt(const StepTable& steps, TimeNs t) {
  if (steps.synthesized) return -1;
  auto it =
      std::upper_bound(steps.rows.begin(), steps.rows.end(), t,
                       [](TimeNs v, const StepTable::Row& row) { return v < row.host_start; });
  if (it == steps.rows.begin() || t >= (it - 1)->host_end) return -1;
  return it - 1 - steps.rows.begin();
}

}  // namespace gpuwhy
