#include "collect/nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>

namespace gpuwhy {
namespace {

// The first of |names| the library exports (versioned names come first).
template <typename F>
bool Resolve(void* handle, F& out, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* sym = dlsym(handle, name)) {
      out = reinterpret_cast<F>(sym);
      return true;
    }
  }
  return false;
}

}  // namespace

StatusOr<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& path) {
  std::string where = path;
  if (where.empty()) {
    const char* env = std::getenv("GPUWHY_NVML_LIBRARY");
    where = env != nullptr && *env != '\0' ? env : "libnvidia-ml.so.1";
  }
  void* handle = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return NotFound(
        "NVML not found ({}): no NVIDIA driver on this machine? GPU metrics are "
        "skipped; host metrics are still recorded",
        where);
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  lib->path_ = where;
  NvmlFunctions& f = lib->fn_;
  bool core = Resolve(handle, f.init, {"nvmlInit_v2", "nvmlInit"}) &&
              Resolve(handle, f.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}) &&
              Resolve(handle, f.handle_by_index,
                      {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  if (!core) return InvalidArgument("{}: not an NVML library (no nvmlInit)", where);
  auto opt = [&](auto& fn, std::initializer_list<const char*> names) {
    if (!Resolve(handle, fn, names)) lib->missing_.push_back(*names.begin());
  };
  opt(f.shutdown, {"nvmlShutdown"});
  opt(f.error_string, {"nvmlErrorString"});
  opt(f.name, {"nvmlDeviceGetName"});
  opt(f.uuid, {"nvmlDeviceGetUUID"});
  opt(f.pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  opt(f.utilization, {"nvmlDeviceGetUtilizationRates"});
  opt(f.samples, {"nvmlDeviceGetSamples"});
  opt(f.memory_v2, {"nvmlDeviceGetMemoryInfo_v2"});
  opt(f.memory, {"nvmlDeviceGetMemoryInfo"});
  opt(f.clock, {"nvmlDeviceGetClockInfo"});
  opt(f.max_clock, {"nvmlDeviceGetMaxClockInfo"});
  opt(f.clock_event_reasons,
      {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  opt(f.power_usage, {"nvmlDeviceGetPowerUsage"});
  opt(f.power_limit, {"nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"});
  opt(f.temperature, {"nvmlDeviceGetTemperature"});
  opt(f.temperature_threshold, {"nvmlDeviceGetTemperatureThreshold"});
  opt(f.pcie_gen, {"nvmlDeviceGetCurrPcieLinkGeneration"});
  opt(f.pcie_gen_max, {"nvmlDeviceGetMaxPcieLinkGeneration"});
  opt(f.pcie_width, {"nvmlDeviceGetCurrPcieLinkWidth"});
  opt(f.pcie_width_max, {"nvmlDeviceGetMaxPcieLinkWidth"});
  opt(f.field_values, {"nvmlDeviceGetFieldValues"});
  opt(f.compute_processes,
      {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
       "nvmlDeviceGetComputeRunningProcesses"});
  opt(f.process_utilization, {"nvmlDeviceGetProcessUtilization"});
  opt(f.persistence, {"nvmlDeviceGetPersistenceMode"});
  opt(f.remapped_rows, {"nvmlDeviceGetRemappedRows"});
  opt(f.ecc_errors, {"nvmlDeviceGetTotalEccErrors"});
  opt(f.event_set_create, {"nvmlEventSetCreate"});
  opt(f.register_events, {"nvmlDeviceRegisterEvents"});
  opt(f.event_set_wait, {"nvmlEventSetWait_v2", "nvmlEventSetWait"});
  opt(f.event_set_free, {"nvmlEventSetFree"});
  if (nvml::Return r = f.init(); r != nvml::kSuccess) {
    return Internal("{}: nvmlInit failed: {} (driver not loaded?)", where, lib->ErrorString(r));
  }
  return lib;
}

NvmlLibrary::~NvmlLibrary() {
  if (fn_.shutdown != nullptr) fn_.shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

std::string NvmlLibrary::ErrorString(nvml::Return r) const {
  if (fn_.error_string != nullptr) {
    if (const char* s = fn_.error_string(r)) return s;
  }
  return "NVML error " + std::to_string(r);
}

size_t ProbeProcessRecordSize(const unsigned char* buffer, size_t buffer_size, unsigned int count,
                              unsigned char sentinel) {
  for (size_t stride : {16u, 24u, 32u}) {
    size_t used = stride * count;
    if (used > buffer_size) break;
    bool untouched = true;
    for (size_t i = used; i < buffer_size && untouched; ++i) untouched = buffer[i] == sentinel;
    if (untouched) return stride;
  }
  return sizeof(nvml::ProcessInfo);
}

}  // namespace gpuwhy
