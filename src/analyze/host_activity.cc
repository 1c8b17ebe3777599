#include "analyze/host_activity.h"

#include <algorithm>
#include <unordered_map>

#include "analyze/analysis_input.h"

namespace gpuwhy {
namespace {

// Role bits that follow from the name and kind alone (launches need the correlation index).
uint8_t NameRoles(std::string_view name, CpuSliceKind kind) {
  uint8_t roles = 0;
  bool host_op = kind == CpuSliceKind::kOp || kind == CpuSliceKind::kUserAnnotation;
  if ((host_op || kind == CpuSliceKind::kPython) && IsDataLoaderName(name))
    roles |= kRoleDataLoader;
  if (host_op && IsPluginCollectiveName(name)) roles |= kRolePluginCollective;
  if (host_op && IsCollectiveScopeName(name)) roles |= kRoleCollectiveScope;
  if (host_op && name.starts_with("ProfilerStep#")) roles |= kRoleProfilerStep;
  if (kind == CpuSliceKind::kOp &&
      (name.starts_with("aten::") || name.starts_with("autograd::engine::evaluate_function"))) {
    roles |= kRoleDispatchOp;
  }
  if (kind == CpuSliceKind::kOp && (name == "aten::item" || name == "aten::_local_scalar_dense")) {
    roles |= kRoleItemScope;
  }
  bool call = kind == CpuSliceKind::kRuntime || kind == CpuSliceKind::kDriver;
  if (call && IsBlockingSyncCallName(name)) roles |= kRoleBlockingSync;
  return roles;
}

bool IsMemcpyCallName(std::string_view name) {
  return name.starts_with("cudaMemcpy") || name.starts_with("hipMemcpy") ||
         name.starts_with("cuMemcpy");
}

}  // namespace

bool IsDataLoaderName(std::string_view name) {
  if ((name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
      name.starts_with("enumerate(DataPipe)#"))
    return true;
  // with_stack frames of the DataLoader's iterator, in any form the main thread waits in it
  // (a loop that calls next(it) itself gets no enumerate() annotation): "torch/utils/data/
  // dataloader.py(1328): _next_data", "...: __next__", "...: _get_data", "...: _try_get_data".
  if (name.find("torch/utils/data/dataloader.py(") == std::string_view::npos) return false;
  return name.ends_with(": __next__") || name.ends_with(": _next_data") ||
         name.ends_with(": _get_data") || name.ends_with(": _try_get_data");
}

bool IsPluginCollectiveName(std::string_view name) {
  return name.starts_with("nccl:") || name.starts_with("gloo:");
}

bool IsCollectiveScopeName(std::string_view name) {
  return IsPluginCollectiveName(name) || name.starts_with("c10d::") || name == "record_param_comms";
}

bool IsBlockingSyncCallName(std::string_view name) {
  static constexpr std::string_view kSyncs[] = {
      "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
      "cudaThreadSynchronize", "hipDeviceSynchronize",  "hipStreamSynchronize",
      "hipEventSynchronize",   "cuCtxSynchronize",      "cuStreamSynchronize",
      "cuEventSynchronize",
  };
  for (std::string_view s : kSyncs) {
    if (name == s) return true;
  }
  // Copies without "Async" return only when the copy is done (cudaMemcpy, cudaMemcpy2D,
  // cuMemcpyDtoH_v2, hipMemcpyDtoH, ...).
  return IsMemcpyCallName(name) && name.find("Async") == std::string_view::npos;
}

HostActivity ClassifyHostActivity(const Trace& trace) {
  const CpuSliceTable& t = trace.cpu_slices;
  HostActivity h;
  h.roles.assign(t.size(), 0);
  h.under_collective.assign(t.size(), 0);
  std::unordered_map<uint64_t, uint8_t> by_name;  // (name, kind) classified once
  std::vector<int64_t> launches(trace.threads.size(), 0);
  std::vector<int64_t> step_rows(trace.threads.size(), 0);
  std::vector<uint8_t> under_item(t.size(), 0);
  for (size_t i = 0; i < t.size(); ++i) {
    uint64_t key = (uint64_t{t.name[i].value} << 3) | static_cast<uint64_t>(t.kind[i]);
    auto it = by_name.find(key);
    if (it == by_name.end())
      it = by_name.emplace(key, NameRoles(trace.Str(t.name[i]), t.kind[i])).first;
    uint8_t roles = it->second;
    // Rows are sorted parents first, so ancestors are already final.
    CpuSliceId parent = t.parent[i];
    bool parent_collective = parent.valid() && h.under_collective[parent.value];
    bool parent_item = parent.valid() && under_item[parent.value];
    h.under_collective[i] = parent_collective || (roles & kRoleCollectiveScope) != 0;
    under_item[i] = parent_item || (roles & kRoleItemScope) != 0;
    bool call = t.kind[i] == CpuSliceKind::kRuntime || t.kind[i] == CpuSliceKind::kDriver;
    if (call && t.correlation[i] != kNoValue && !trace.FindGpuOps(t.correlation[i]).empty()) {
      // A copy issued by .item() stalls the host until the value is back.
      if (under_item[i] && IsMemcpyCallName(trace.Str(t.name[i]))) roles |= kRoleBlockingSync;
      if ((roles & kRoleBlockingSync) == 0) {
        roles |= kRoleLaunch;
        ++launches[t.thread[i].value];
        ++h.launch_count;
      }
    }
    if (roles & kRoleProfilerStep) ++step_rows[t.thread[i].value];
    h.roles[i] = roles;
  }
  auto best = [](const std::vector<int64_t>& counts) {
    auto it = std::max_element(counts.begin(), counts.end());
    return it == counts.end() || *it == 0 ? ThreadId()
                                          : ThreadId(static_cast<uint32_t>(it - counts.begin()));
  };
  h.main_thread = best(step_rows);
  if (!h.main_thread.valid()) h.main_thread = best(launches);
  for (uint32_t th = 0; th < launches.size(); ++th) {
    if (launches[th] > 0 || ThreadId(th) == h.main_thread)
      h.launching_threads.push_back(ThreadId(th));
  }
  return h;
}

const HostActivity& SharedHostActivity(const AnalysisInput& input, HostActivity& scratch) {
  if (input.host != nullptr) return *input.host;
  scratch = ClassifyHostActivity(input.trace);
  return scratch;
}

}  // namespace gpuwhy
