#include "base/bytes.h"
#include "collect/nvml_sampler.h"

#include <fmt/format.h>

#include <cstring>

namespace gpuwhy {
namespace {

constexpr unsigned char kSentinel = 0xA5;
constexpr size_t kMaxNvmlProcesses = 64;

bool Ok(nvml::Return r) { return r == nvml::kSuccess; }

}  // namespace

Status NvmlSampler::Probe() {
  StatusOr<std::unique_ptr<NvmlLibrary>> lib = NvmlLibrary::Load(library_path_);
  if (!lib.ok()) return lib.status();
  lib_ = std::move(*lib);
  if (!lib_->missing().empty()) {
    std::string names;
    for (const std::string& m : lib_->missing()) names += (names.empty() ? "" : ", ") + m;
    notes_.push_back(fmt::format("NVML ({}) lacks {}: those metrics are skipped (older driver)",
                                 lib_->path(), names));
  }
  unsigned int count = 0;
  if (!Ok(lib_->fn().device_count(&count)) || count == 0) {
    return NotFound("NVML found no GPU: GPU metrics are skipped");
  }
  const NvmlFunctions& f = lib_->fn();
  if (f.event_set_create && f.register_events && f.event_set_wait &&
      !Ok(f.event_set_create(&events_))) {
    events_ = nullptr;
  }
  for (unsigned int i = 0; i < count; ++i) {
    Gpu gpu;
    gpu.info.index = static_cast<int32_t>(i);
    if (!Ok(f.handle_by_index(i, &gpu.handle))) {
      notes_.push_back(fmt::format("NVML device {}: no handle (lost or no permission)", i));
      continue;
    }
    ProbeDevice(gpu);
    if (events_ != nullptr &&
        !Ok(f.register_events(gpu.handle, nvml::kEventXidCriticalError, events_))) {
      notes_.push_back(fmt::format("GPU {}: Xid events not available", i));
    }
    gpus_.push_back(std::move(gpu));
  }
  return Status::Ok();
}

void NvmlSampler::ProbeDevice(Gpu& gpu) {
  const NvmlFunctions& f = lib_->fn();
  nvml::Device d = gpu.handle;
  char text[96] = {};
  if (f.name && Ok(f.name(d, text, sizeof(text)))) gpu.info.name = text;
  if (f.uuid && Ok(f.uuid(d, text, sizeof(text)))) gpu.info.uuid = text;
  nvml::PciInfo pci{};
  if (f.pci_info && Ok(f.pci_info(d, &pci))) gpu.info.pci_bus_id = pci.bus_id;
  unsigned int u = 0;
  unsigned long long ull = 0;
  nvml::Utilization util{};
  gpu.can[kUtil] = f.utilization && Ok(f.utilization(d, &util));
  gpu.can[kSamples] = f.samples != nullptr;  // probed on first use: needs a timestamp
  nvml::MemoryV2 m2{};
  m2.version = nvml::StructVersion(sizeof(nvml::MemoryV2), 2);
  gpu.can[kMemoryV2] = f.memory_v2 && Ok(f.memory_v2(d, &m2));
  nvml::Memory m{};
  gpu.can[kMemory] = !gpu.can[kMemoryV2] && f.memory && Ok(f.memory(d, &m));
  gpu.can[kClocks] = f.clock && Ok(f.clock(d, nvml::kClockSm, &u));
  gpu.can[kMaxClocks] = f.max_clock && Ok(f.max_clock(d, nvml::kClockSm, &u));
  gpu.can[kReasons] = f.clock_event_reasons && Ok(f.clock_event_reasons(d, &ull));
  gpu.can[kPower] = f.power_usage && Ok(f.power_usage(d, &u));
  gpu.can[kPowerLimit] = f.power_limit && Ok(f.power_limit(d, &u));
  gpu.can[kTemp] = f.temperature && Ok(f.temperature(d, nvml::kTemperatureGpu, &u));
  gpu.can[kTempSlowdown] = f.temperature_threshold &&
                           Ok(f.temperature_threshold(d, nvml::kTemperatureThresholdSlowdown, &u));
  gpu.can[kPcie] = f.pcie_gen && f.pcie_width && Ok(f.pcie_gen(d, &u));
  gpu.can[kPcieMax] = f.pcie_gen_max && f.pcie_width_max && Ok(f.pcie_gen_max(d, &u));
  gpu.can[kPcieBytes] = f.field_values != nullptr;
  gpu.can[kProcesses] = f.compute_processes != nullptr;
  gpu.can[kProcessUtil] = f.process_utilization != nullptr;
  int mode = 0;
  gpu.can[kPersistence] = f.persistence && Ok(f.persistence(d, &mode));
  unsigned int a = 0, b = 0, c = 0, e = 0;
  gpu.can[kRemapped] = f.remapped_rows && Ok(f.remapped_rows(d, &a, &b, &c, &e));
  gpu.can[kEcc] =
      f.ecc_errors && Ok(f.ecc_errors(d, nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc, &ull));
}

std::vector<SeriesDevice> NvmlSampler::devices() const {
  std::vector<SeriesDevice> out;
  for (const Gpu& g : gpus_) out.push_back(g.info);
  return out;
}

// Values that do not change while a job runs: read on the first sample only.
void NvmlSampler::SampleStatic(Gpu& g, TimeNs now, SampleStore& store) {
  const NvmlFunctions& f = lib_->fn();
  const int32_t i = g.info.index;
  unsigned int u = 0;
  if (g.can[kMaxClocks]) {
    if (Ok(f.max_clock(g.handle, nvml::kClockSm, &u)))
      store.Add({"gpu.sm_clock_max_mhz", i, ""}, "MHz", now, u);
    if (Ok(f.max_clock(g.handle, nvml::kClockMem, &u)))
      store.Add({"gpu.mem_clock_max_mhz", i, ""}, "MHz", now, u);
  }
  if (g.can[kTempSlowdown] &&
      Ok(f.temperature_threshold(g.handle, nvml::kTemperatureThresholdSlowdown, &u))) {
    store.Add({"gpu.temp_slowdown_c", i, ""}, "C", now, u);
  }
  if (g.can[kPcieMax]) {
    if (Ok(f.pcie_gen_max(g.handle, &u))) store.Add({"gpu.pcie_gen_max", i, ""}, "gen", now, u);
    if (Ok(f.pcie_width_max(g.handle, &u)))
      store.Add({"gpu.pcie_width_max", i, ""}, "lanes", now, u);
  }
  int mode = 0;
  if (g.can[kPersistence] && Ok(f.persistence(g.handle, &mode))) {
    store.Add({"gpu.persistence", i, ""}, "bool", now, mode);
  }
  g.static_done = true;
}

void NvmlSampler::SampleProcesses(Gpu& g, TimeNs now, SampleStore& store) {
  const NvmlFunctions& f = lib_->fn();
  const int32_t i = g.info.index;
  if (g.can[kProcesses]) {
    std::vector<unsigned char> buffer(kMaxNvmlProcesses * 32, kSentinel);
    unsigned int count = kMaxNvmlProcesses;
    nvml::Return r = f.compute_processes(g.handle, &count, buffer.data());
    if (Ok(r)) {
      size_t stride = ProbeProcessRecordSize(buffer.data(), buffer.size(), count, kSentinel);
      if (process_record_size_ == 0) process_record_size_ = stride;
      for (unsigned int p = 0; p < count; ++p) {
        unsigned int pid = 0;
        unsigned long long mem = 0;
        std::memcpy(&pid, buffer.data() + p * stride, sizeof(pid));
        std::memcpy(&mem, buffer.data() + p * stride + 8, sizeof(mem));
        std::string entity = fmt::format("pid {}", pid);
        store.Add({"gpu.process_seen", i, entity}, "bool", now, 1);
        if (mem != ~0ULL) store.Add({"gpu.process_mem_mib", i, entity}, "MiB", now, mem / kMiB);
      }
    } else if (r == nvml::kErrorNotSupported) {
      g.can[kProcesses] = false;
    }
  }
  if (g.can[kProcessUtil]) {
    std::array<nvml::ProcessUtilizationSample, kMaxNvmlProcesses> samples{};
    unsigned int count = kMaxNvmlProcesses;
    nvml::Return r = f.process_utilization(g.handle, samples.data(), &count, g.last_process_us);
    if (Ok(r)) {
      for (unsigned int p = 0; p < count; ++p) {
        store.Add({"gpu.process_sm_pct", i, fmt::format("pid {}", samples[p].pid)}, "%", now,
                  samples[p].sm_util);
        g.last_process_us = std::max(g.last_process_us, samples[p].time_stamp);
      }
    } else if (r == nvml::kErrorNotSupported) {
      g.can[kProcessUtil] = false;
    }
  }
}

// Cumulative PCIe byte counters (field values, not the blocking 20 ms throughput call),
// turned into MB/s over the sampling interval.
void NvmlSampler::SamplePcieBytes(Gpu& g, TimeNs now, SampleStore& store) {
  nvml::FieldValue fields[2] = {};
  fields[0].field_id = nvml::kFieldPcieTxBytes;
  fields[1].field_id = nvml::kFieldPcieRxBytes;
  if (!Ok(lib_->fn().field_values(g.handle, 2, fields)) || !Ok(fields[0].nvml_return)) {
    g.can[kPcieBytes] = false;
    return;
  }
  auto tx = static_cast<long long>(fields[0].value.ull);
  auto rx = static_cast<long long>(fields[1].value.ull);
  if (g.last_tx >= 0 && now > g.last_bytes_t && tx >= g.last_tx && rx >= g.last_rx) {
    double seconds = NsToSec(now - g.last_bytes_t);
    store.Add({"gpu.pcie_tx_mbps", g.info.index, ""}, "MB/s", now,
              (tx - g.last_tx) / seconds / 1e6);
    store.Add({"gpu.pcie_rx_mbps", g.info.index, ""}, "MB/s", now,
              (rx - g.last_rx) / seconds / 1e6);
  }
  g.last_tx = tx;
  g.last_rx = rx;
  g.last_bytes_t = now;
}

void NvmlSampler::DrainXid(TimeNs now, SampleStore& store) {
  if (events_ == nullptr) return;
  for (int n = 0; n < 16; ++n) {  // bounded: a storm of events must not stall the tick
    nvml::EventData event{};
    if (!Ok(lib_->fn().event_set_wait(events_, &event, 0))) return;
    for (const Gpu& g : gpus_) {
      if (g.handle == event.device) {
        store.Add({"gpu.xid", g.info.index, ""}, "code", now,
                  static_cast<double>(event.event_data));
      }
    }
  }
}

void NvmlSampler::Sample(TimeNs now, SampleStore& store) {
  if (!lib_) return;
  const NvmlFunctions& f = lib_->fn();
  for (Gpu& g : gpus_) {
    const int32_t i = g.info.index;
    if (!g.static_done) SampleStatic(g, now, store);
    nvml::Utilization util{};
    if (g.can[kUtil] && Ok(f.utilization(g.handle, &util))) {
      store.Add({"gpu.util_pct", i, ""}, "%", now, util.gpu);
      store.Add({"gpu.mem_util_pct", i, ""}, "%", now, util.memory);
    }
    if (g.can[kSamples]) {
      std::array<nvml::Sample, 128> buf{};
      unsigned int count = buf.size();
      int type = 0;
      nvml::Return r = f.samples(g.handle, nvml::kGpuUtilizationSamples, g.last_sample_us, &type,
                                 &count, buf.data());
      if (Ok(r)) {
        // The driver's own high-rate buffer, on its own (µs) clock.
        for (unsigned int s = 0; s < count; ++s) {
          if (buf[s].time_stamp <= g.last_sample_us) continue;
          store.Add({"gpu.util_driver_pct", i, ""}, "%",
                    static_cast<TimeNs>(buf[s].time_stamp) * kNsPerUs, buf[s].value.ui);
          g.last_sample_us = buf[s].time_stamp;
        }
      } else if (r != nvml::kErrorNotFound) {
        g.can[kSamples] = false;
      }
    }
    nvml::MemoryV2 m2{};
    m2.version = nvml::StructVersion(sizeof(nvml::MemoryV2), 2);
    nvml::Memory m{};
    if (g.can[kMemoryV2] && Ok(f.memory_v2(g.handle, &m2))) {
      store.Add({"gpu.mem_used_mib", i, ""}, "MiB", now, m2.used / kMiB);
      store.Add({"gpu.mem_total_mib", i, ""}, "MiB", now, m2.total / kMiB);
    } else if (g.can[kMemory] && Ok(f.memory(g.handle, &m))) {
      store.Add({"gpu.mem_used_mib", i, ""}, "MiB", now, m.used / kMiB);
      store.Add({"gpu.mem_total_mib", i, ""}, "MiB", now, m.total / kMiB);
    }
    unsigned int u = 0;
    unsigned long long bits = 0;
    if (g.can[kClocks] && Ok(f.clock(g.handle, nvml::kClockSm, &u)))
      store.Add({"gpu.sm_clock_mhz", i, ""}, "MHz", now, u);
    if (g.can[kClocks] && Ok(f.clock(g.handle, nvml::kClockMem, &u)))
      store.Add({"gpu.mem_clock_mhz", i, ""}, "MHz", now, u);
    if (g.can[kReasons] && Ok(f.clock_event_reasons(g.handle, &bits))) {
      store.Add({"gpu.throttle_reasons", i, ""}, "bitmask", now, static_cast<double>(bits));
    }
    if (g.can[kPower] && Ok(f.power_usage(g.handle, &u)))
      store.Add({"gpu.power_w", i, ""}, "W", now, u / 1000.0);
    if (g.can[kPowerLimit] && Ok(f.power_limit(g.handle, &u)))
      store.Add({"gpu.power_limit_w", i, ""}, "W", now, u / 1000.0);
    if (g.can[kTemp] && Ok(f.temperature(g.handle, nvml::kTemperatureGpu, &u)))
      store.Add({"gpu.temp_c", i, ""}, "C", now, u);
    if (g.can[kPcie]) {
      if (Ok(f.pcie_gen(g.handle, &u))) store.Add({"gpu.pcie_gen", i, ""}, "gen", now, u);
      if (Ok(f.pcie_width(g.handle, &u))) store.Add({"gpu.pcie_width", i, ""}, "lanes", now, u);
    }
    if (g.can[kPcieBytes]) SamplePcieBytes(g, now, store);
    SampleProcesses(g, now, store);
    unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
    if (g.can[kRemapped] && Ok(f.remapped_rows(g.handle, &corr, &unc, &pending, &failed))) {
      store.Add({"gpu.remapped_rows_pending", i, ""}, "bool", now, pending);
    }
    if (g.can[kEcc] &&
        Ok(f.ecc_errors(g.handle, nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc, &bits))) {
      store.Add({"gpu.ecc_double_bit", i, ""}, "count", now, static_cast<double>(bits));
    }
  }
  DrainXid(now, store);
}

}  // namespace gpuwhy
