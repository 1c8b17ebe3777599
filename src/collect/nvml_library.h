// NVML loaded at run time with dlopen: versioned symbols first (nvmlInit_v2 before
// nvmlInit, ..._v3 before _v2 before the plain name), every function optional except
// init/count/handle. No NVML, no driver or no GPU is a clear message, never a crash.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "collect/nvml_abi.h"

namespace gpuwhy {

// Resolved entry points; nullptr when the library lacks them (an older driver).
struct NvmlFunctions {
  nvml::Return (*init)() = nullptr;
  nvml::Return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml::Return) = nullptr;
  nvml::Return (*device_count)(unsigned int*) = nullptr;
  nvml::Return (*handle_by_index)(unsigned int, nvml::Device*) = nullptr;
  nvml::Return (*name)(nvml::Device, char*, unsigned int) = nullptr;
  nvml::Return (*uuid)(nvml::Device, char*, unsigned int) = nullptr;
  nvml::Return (*pci_info)(nvml::Device, nvml::PciInfo*) = nullptr;
  nvml::Return (*utilization)(nvml::Device, nvml::Utilization*) = nullptr;
  nvml::Return (*samples)(nvml::Device, int, unsigned long long, int*, unsigned int*,
                          nvml::Sample*) = nullptr;
  nvml::Return (*memory_v2)(nvml::Device, nvml::MemoryV2*) = nullptr;
  nvml::Return (*memory)(nvml::Device, nvml::Memory*) = nullptr;
  nvml::Return (*clock)(nvml::Device, int, unsigned int*) = nullptr;
  nvml::Return (*max_clock)(nvml::Device, int, unsigned int*) = nullptr;
  nvml::Return (*clock_event_reasons)(nvml::Device, unsigned long long*) = nullptr;
  nvml::Return (*power_usage)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*power_limit)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*temperature)(nvml::Device, int, unsigned int*) = nullptr;
  nvml::Return (*temperature_threshold)(nvml::Device, int, unsigned int*) = nullptr;
  nvml::Return (*pcie_gen)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*pcie_gen_max)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*pcie_width)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*pcie_width_max)(nvml::Device, unsigned int*) = nullptr;
  nvml::Return (*field_values)(nvml::Device, int, nvml::FieldValue*) = nullptr;
  nvml::Return (*compute_processes)(nvml::Device, unsigned int*, void*) = nullptr;
  nvml::Return (*process_utilization)(nvml::Device, nvml::ProcessUtilizationSample*, unsigned int*,
                                      unsigned long long) = nullptr;
  nvml::Return (*persistence)(nvml::Device, int*) = nullptr;
  nvml::Return (*remapped_rows)(nvml::Device, unsigned int*, unsigned int*, unsigned int*,
                                unsigned int*) = nullptr;
  nvml::Return (*ecc_errors)(nvml::Device, int, int, unsigned long long*) = nullptr;
  nvml::Return (*event_set_create)(nvml::EventSet*) = nullptr;
  nvml::Return (*register_events)(nvml::Device, unsigned long long, nvml::EventSet) = nullptr;
  nvml::Return (*event_set_wait)(nvml::EventSet, nvml::EventData*, unsigned int) = nullptr;
  nvml::Return (*event_set_free)(nvml::EventSet) = nullptr;
};

class NvmlLibrary {
 public:
  // Where to load from: |path| when not empty, else $GPUWHY_NVML_LIBRARY, else
  // "libnvidia-ml.so.1" through the dynamic loader's search. Initializes NVML. Errors say
  // what is missing in one line ("NVML not found (libnvidia-ml.so.1): no NVIDIA driver?").
  static StatusOr<std::unique_ptr<NvmlLibrary>> Load(const std::string& path = "");
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const NvmlFunctions& fn() const { return fn_; }
  const std::string& path() const { return path_; }
  std::string ErrorString(nvml::Return r) const;
  // Names of optional functions this library lacks (older drivers), for the notes.
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  NvmlLibrary() = default;
  void* handle_ = nullptr;
  std::string path_;
  NvmlFunctions fn_;
  std::vector<std::string> missing_;
};

// Probes the byte size of one record the running-processes getter writes (16, 24 or 32):
// the smallest stride after whose |count| records the sentinel-filled buffer is untouched.
size_t ProbeProcessRecordSize(const unsigned char* buffer, size_t buffer_size, unsigned int count,
                              unsigned char sentinel);

}  // namespace gpuwhy
