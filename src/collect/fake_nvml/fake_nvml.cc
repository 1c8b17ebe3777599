// A fake libnvidia-ml for tests: the same C ABI as the functions gpuwhy resolves, with device
// states scripted in the file named by $FAKE_NVML_SCRIPT. Built twice: a modern driver, and
// (FAKE_NVML_OLD) an old one that lacks the versioned and newer entry points.
//
// Script lines (blank and '#' lines ignored):
//   devices N                    number of GPUs
//   record_size 16|24|32         bytes per running-process record the driver writes
//   static D key=value ...       fixed values of device D (name, smmax, genmax, widthmax, ...)
//   tick D key=value ...         one sample of device D; the n-th utilization read of D
//                                selects its n-th tick (the last one repeats). A sampler's
//                                probe reads utilization once: that read takes tick 1.
// Keys: util memutil used total sm mem smmax throttle power plimit temp slow gen width
//       genmax widthmax pids (pid:MiB,pid:MiB) xid tx rx name uuid bus
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Kv = std::map<std::string, std::string>;

struct FakeDevice {
  Kv fixed;
  std::vector<Kv> ticks;
  size_t reads = 0;  // utilization reads so far: selects the tick
  bool xid_sent = false;
};

struct FakeState {
  bool loaded = false;
  int record_size = 24;
  std::vector<FakeDevice> devices;
};

FakeState& State() {
  static FakeState state;
  if (state.loaded) return state;
  state.loaded = true;
  const char* path = std::getenv("FAKE_NVML_SCRIPT");
  if (path == nullptr) return state;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "devices") {
      size_t n = 0;
      words >> n;
      state.devices.resize(n);
    } else if (kind == "record_size") {
      words >> state.record_size;
    } else if (kind == "static" || kind == "tick") {
      size_t d = 0;
      words >> d;
      if (d >= state.devices.size()) continue;
      Kv kv;
      std::string item;
      while (words >> item) {
        size_t eq = item.find('=');
        if (eq != std::string::npos) kv[item.substr(0, eq)] = item.substr(eq + 1);
      }
      if (kind == "static") {
        for (auto& [k, v] : kv) state.devices[d].fixed[k] = v;
      } else {
        state.devices[d].ticks.push_back(kv);
      }
    }
  }
  return state;
}

FakeDevice* Dev(void* handle) {
  auto index = reinterpret_cast<uintptr_t>(handle) - 1;
  FakeState& s = State();
  return index < s.devices.size() ? &s.devices[index] : nullptr;
}

// The device's current tick (the last utilization read's), then its fixed values.
const std::string* Get(FakeDevice* d, const char* key) {
  if (!d->ticks.empty()) {
    size_t at = d->reads == 0 ? 0 : std::min(d->reads - 1, d->ticks.size() - 1);
    auto it = d->ticks[at].find(key);
    if (it != d->ticks[at].end()) return &it->second;
  }
  auto it = d->fixed.find(key);
  return it == d->fixed.end() ? nullptr : &it->second;
}

int GetUint(void* h, const char* key, unsigned int* out, double scale = 1) {
  FakeDevice* d = Dev(h);
  if (d == nullptr) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  const std::string* v = Get(d, key);
  if (v == nullptr) return 3;  // NVML_ERROR_NOT_SUPPORTED
  *out = static_cast<unsigned int>(std::strtod(v->c_str(), nullptr) * scale);
  return 0;
}

int GetText(void* h, const char* key, char* out, unsigned int len, const char* fallback) {
  FakeDevice* d = Dev(h);
  if (d == nullptr) return 2;
  const std::string* v = Get(d, key);
  std::snprintf(out, len, "%s", v ? v->c_str() : fallback);
  return 0;
}

}  // namespace

extern "C" {

#ifdef FAKE_NVML_OLD
int nvmlInit() { return 0; }
int nvmlDeviceGetCount(unsigned int* n) {
#else
int nvmlInit_v2() { return 0; }
int nvmlDeviceGetCount_v2(unsigned int* n) {
#endif
  *n = static_cast<unsigned int>(State().devices.size());
  return 0;
}

#ifdef FAKE_NVML_OLD
int nvmlDeviceGetHandleByIndex(unsigned int i, void** h) {
#else
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void** h) {
#endif
  if (i >= State().devices.size()) return 2;
  *h = reinterpret_cast<void*>(static_cast<uintptr_t>(i) + 1);
  return 0;
}

int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int r) { return r == 3 ? "Not Supported" : "Fake NVML error"; }
int nvmlDeviceGetName(void* h, char* out, unsigned int len) {
  return GetText(h, "name", out, len, "Fake GPU");
}
int nvmlDeviceGetUUID(void* h, char* out, unsigned int len) {
  return GetText(h, "uuid", out, len, "GPU-fake");
}

struct PciInfo {
  char legacy[16];
  unsigned int domain, bus, device, id, subsystem;
  char bus_id[32];
};
#ifdef FAKE_NVML_OLD
int nvmlDeviceGetPciInfo_v2(void* h, PciInfo* p) {
#else
int nvmlDeviceGetPciInfo_v3(void* h, PciInfo* p) {
#endif
  std::memset(p, 0, sizeof(*p));
  return GetText(h, "bus", p->bus_id, sizeof(p->bus_id), "00000000:00:00.0");
}

int nvmlDeviceGetUtilizationRates(void* h, unsigned int* rates) {
  FakeDevice* d = Dev(h);
  if (d == nullptr) return 2;
  ++d->reads;
  if (GetUint(h, "util", &rates[0]) != 0) return 3;
  if (GetUint(h, "memutil", &rates[1]) != 0) rates[1] = 0;
  return 0;
}

struct Memory {
  unsigned long long total, free, used;
};
int nvmlDeviceGetMemoryInfo(void* h, Memory* m) {
  unsigned int used = 0, total = 0;
  if (GetUint(h, "used", &used) != 0 || GetUint(h, "total", &total) != 0) return 3;
  m->total = static_cast<unsigned long long>(total) << 20;
  m->used = static_cast<unsigned long long>(used) << 20;
  m->free = m->total - m->used;
  return 0;
}

int nvmlDeviceGetClockInfo(void* h, int type, unsigned int* mhz) {
  return GetUint(h, type == 1 ? "sm" : "mem", mhz);
}
int nvmlDeviceGetMaxClockInfo(void* h, int type, unsigned int* mhz) {
  return GetUint(h, type == 1 ? "smmax" : "memmax", mhz);
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void* h, unsigned long long* bits) {
  FakeDevice* d = Dev(h);
  const std::string* v = d ? Get(d, "throttle") : nullptr;
  if (v == nullptr) return 3;
  *bits = std::strtoull(v->c_str(), nullptr, 0);
  return 0;
}
int nvmlDeviceGetPowerUsage(void* h, unsigned int* mw) { return GetUint(h, "power", mw, 1000); }
int nvmlDeviceGetEnforcedPowerLimit(void* h, unsigned int* mw) {
  return GetUint(h, "plimit", mw, 1000);
}
int nvmlDeviceGetTemperature(void* h, int, unsigned int* c) { return GetUint(h, "temp", c); }
int nvmlDeviceGetTemperatureThreshold(void* h, int, unsigned int* c) {
  return GetUint(h, "slow", c);
}
int nvmlDeviceGetCurrPcieLinkGeneration(void* h, unsigned int* g) { return GetUint(h, "gen", g); }
int nvmlDeviceGetMaxPcieLinkGeneration(void* h, unsigned int* g) { return GetUint(h, "genmax", g); }
int nvmlDeviceGetCurrPcieLinkWidth(void* h, unsigned int* w) { return GetUint(h, "width", w); }
int nvmlDeviceGetMaxPcieLinkWidth(void* h, unsigned int* w) { return GetUint(h, "widthmax", w); }
int nvmlDeviceGetPersistenceMode(void* h, int* mode) {
  unsigned int v = 0;
  int r = GetUint(h, "persistence", &v);
  *mode = static_cast<int>(v);
  return r;
}

// Records of |record_size| bytes: pid (4), pad (4), usedGpuMemory (8), instance ids (8),
// and for 32-byte records 8 more bytes.
static int WriteProcesses(void* h, unsigned int* count, unsigned char* out) {
  FakeDevice* d = Dev(h);
  if (d == nullptr) return 2;
  const std::string* pids = Get(d, "pids");
  std::vector<std::pair<unsigned int, unsigned long long>> list;
  if (pids != nullptr) {
    std::istringstream in(*pids);
    std::string item;
    while (std::getline(in, item, ',')) {
      size_t colon = item.find(':');
      list.emplace_back(std::stoul(item.substr(0, colon)),
                        colon == std::string::npos ? 0 : std::stoull(item.substr(colon + 1)) << 20);
    }
  }
  if (*count < list.size()) {
    *count = static_cast<unsigned int>(list.size());
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  const size_t stride = static_cast<size_t>(State().record_size);
  for (size_t i = 0; i < list.size(); ++i) {
    unsigned char* rec = out + i * stride;
    std::memset(rec, 0, stride);
    std::memcpy(rec, &list[i].first, 4);
    std::memcpy(rec + 8, &list[i].second, 8);
    if (stride >= 24) std::memset(rec + 16, 0xFF, 8);  // no MIG: instance ids invalid
  }
  *count = static_cast<unsigned int>(list.size());
  return 0;
}

#ifdef FAKE_NVML_OLD
int nvmlDeviceGetComputeRunningProcesses(void* h, unsigned int* count, unsigned char* out) {
#else
int nvmlDeviceGetComputeRunningProcesses_v3(void* h, unsigned int* count, unsigned char* out) {
#endif
  return WriteProcesses(h, count, out);
}

#ifndef FAKE_NVML_OLD
int nvmlDeviceGetCurrentClocksEventReasons(void* h, unsigned long long* bits) {
  return nvmlDeviceGetCurrentClocksThrottleReasons(h, bits);
}

struct MemoryV2 {
  unsigned int version;
  unsigned long long total, reserved, free, used;
};
int nvmlDeviceGetMemoryInfo_v2(void* h, MemoryV2* m) {
  // Versioned struct: sizeof | 2 << 24, as NVML checks it.
  if (m->version != (static_cast<unsigned int>(sizeof(MemoryV2)) | (2u << 24))) return 25;
  Memory v1{};
  int r = nvmlDeviceGetMemoryInfo(h, &v1);
  m->total = v1.total;
  m->used = v1.used;
  m->free = v1.free;
  m->reserved = 0;
  return r;
}

struct FieldValue {
  unsigned int field_id, scope_id;
  long long timestamp, latency;
  int value_type, ret;
  unsigned long long value;
};
int nvmlDeviceGetFieldValues(void* h, int count, FieldValue* values) {
  FakeDevice* d = Dev(h);
  if (d == nullptr) return 2;
  for (int i = 0; i < count; ++i) {
    const std::string* v = Get(d, values[i].field_id == 197 ? "tx" : "rx");
    values[i].ret = v ? 0 : 3;
    values[i].value = v ? std::strtoull(v->c_str(), nullptr, 10) : 0;
  }
  return 0;
}

int nvmlDeviceGetSamples(void*, int, unsigned long long, int*, unsigned int* count, void*) {
  *count = 0;
  return 6;  // NVML_ERROR_NOT_FOUND: no new samples
}

// Xid events: one per device whose current tick names "xid".
int nvmlEventSetCreate(void** set) {
  *set = reinterpret_cast<void*>(1);
  return 0;
}
int nvmlDeviceRegisterEvents(void*, unsigned long long, void*) { return 0; }
struct EventData {
  void* device;
  unsigned long long type, data;
  unsigned int gi, ci;
};
int nvmlEventSetWait_v2(void*, EventData* e, unsigned int) {
  FakeState& s = State();
  for (size_t i = 0; i < s.devices.size(); ++i) {
    FakeDevice& d = s.devices[i];
    const std::string* xid = Get(&d, "xid");
    if (xid == nullptr || d.xid_sent) continue;
    d.xid_sent = true;
    e->device = reinterpret_cast<void*>(i + 1);
    e->type = 0x8;
    e->data = std::strtoull(xid->c_str(), nullptr, 10);
    return 0;
  }
  return 10;  // NVML_ERROR_TIMEOUT
}
int nvmlEventSetFree(void*) { return 0; }
#endif

}  // extern "C"
