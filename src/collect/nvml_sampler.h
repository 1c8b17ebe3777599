// GPU metrics from NVML (loaded with dlopen, see nvml_library.h). Probes every device once:
// a function that fails with "not supported" on a device is not called again for it.
// NVML numbers devices in PCI order (not CUDA's); devices carry UUID and PCI bus id so
// other sources can be joined on those.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "collect/nvml_library.h"
#include "collect/sampler.h"

namespace gpuwhy {

class NvmlSampler : public Sampler {
 public:
  // |library_path| empty: $GPUWHY_NVML_LIBRARY or libnvidia-ml.so.1.
  explicit NvmlSampler(std::string library_path = "") : library_path_(std::move(library_path)) {}
  std::string_view name() const override { return "nvml"; }
  Status Probe() override;
  void Sample(TimeNs now, SampleStore& store) override;
  std::vector<SeriesDevice> devices() const override;
  std::vector<std::string> notes() const override { return notes_; }
  size_t process_record_size() const { return process_record_size_; }

 private:
  // What a device answered at probe time; cleared bits are never asked again.
  enum Cap {
    kUtil,
    kSamples,
    kMemoryV2,
    kMemory,
    kClocks,
    kMaxClocks,
    kReasons,
    kPower,
    kPowerLimit,
    kTemp,
    kTempSlowdown,
    kPcie,
    kPcieMax,
    kPcieBytes,
    kProcesses,
    kProcessUtil,
    kPersistence,
    kRemapped,
    kEcc,
    kCapCount
  };
  struct Gpu {
    nvml::Device handle = nullptr;
    SeriesDevice info;
    std::array<bool, kCapCount> can{};
    unsigned long long last_sample_us = 0;
    unsigned long long last_process_us = 0;
    long long last_tx = -1, last_rx = -1;
    TimeNs last_bytes_t = 0;
    bool static_done = false;
  };
  void ProbeDevice(Gpu& gpu);
  void SampleStatic(Gpu& gpu, TimeNs now, SampleStore& store);
  void SampleProcesses(Gpu& gpu, TimeNs now, SampleStore& store);
  void SamplePcieBytes(Gpu& gpu, TimeNs now, SampleStore& store);
  void DrainXid(TimeNs now, SampleStore& store);

  std::string library_path_;
  std::unique_ptr<NvmlLibrary> lib_;
  std::vector<Gpu> gpus_;
  nvml::EventSet events_ = nullptr;
  size_t process_record_size_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace gpuwhy
