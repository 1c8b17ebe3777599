// The part of NVML's C ABI that gpuwhy calls, declared here from NVIDIA's documentation (no
// nvml.h is vendored or needed to build). Only what the sampler uses; layouts are the
// documented ones, and the few structs NVML versions carry their size and version.
#pragma once

#include <cstdint>

namespace gpuwhy::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorFunctionNotFound = 13;

struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t
struct EventSetSt;
using EventSet = EventSetSt*;  // nvmlEventSet_t

struct Utilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

struct Memory {  // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};

// nvmlMemory_v2_t: versioned; version = sizeof | 2 << 24 (NVML_STRUCT_VERSION).
struct MemoryV2 {
  unsigned int version;
  unsigned long long total, reserved, free, used;
};

constexpr unsigned int StructVersion(unsigned int size, unsigned int version) {
  return size | (version << 24);
}

struct PciInfo {  // nvmlPciInfo_t (the _v3 getter)
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

// nvmlProcessInfo_t as the _v3 getter wrote it on the drivers we know: 24 bytes; older
// libraries write 16 (v1), some 32. The stride is probed at run time (nvml_library.cc).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
};

struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t
  unsigned int pid;
  unsigned long long time_stamp;
  unsigned int sm_util, mem_util, enc_util, dec_util;
};

union Value {  // nvmlValue_t
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
};

struct Sample {  // nvmlSample_t
  unsigned long long time_stamp;
  Value value;
};

struct FieldValue {  // nvmlFieldValue_t: 40 bytes
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;
  Return nvml_return;
  Value value;
};
static_assert(sizeof(FieldValue) == 40);

struct EventData {  // nvmlEventData_t
  Device device;
  unsigned long long event_type;
  unsigned long long event_data;
  unsigned int gpu_instance_id, compute_instance_id;
};

inline constexpr unsigned int kFieldPcieTxBytes = 197;  // NVML_FI_DEV_PCIE_COUNT_TX_BYTES
inline constexpr unsigned int kFieldPcieRxBytes = 198;
inline constexpr int kClockSm = 1, kClockMem = 2;        // nvmlClockType_t
inline constexpr int kTemperatureGpu = 0;                // nvmlTemperatureSensors_t
inline constexpr int kTemperatureThresholdSlowdown = 1;  // nvmlTemperatureThresholds_t
inline constexpr int kGpuUtilizationSamples = 1;         // nvmlSamplingType_t
inline constexpr int kValueTypeUnsignedInt = 1;
inline constexpr int kMemoryErrorUncorrected = 1, kVolatileEcc = 0;
inline constexpr unsigned long long kEventXidCriticalError = 0x8;

}  // namespace gpuwhy::nvml
