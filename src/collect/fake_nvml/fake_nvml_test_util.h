// Shared by the tests that drive the NVML sampler through the real dlopen path against the fake
// libnvidia-ml (fake_nvml.cc): a fresh copy of the library with a script of device states, and
// the samples of a number of ticks.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "collect/nvml_sampler.h"
#include "collect/sample_store.h"

namespace gpuwhy {

inline constexpr DurationNs kFakeNvmlTick = 100 * kNsPerMs;

// Each test loads its own copy of the fake, so the fake's state starts fresh.
inline std::string FreshLibrary(const char* built, const std::string& script_text) {
  std::string dir = (std::filesystem::temp_directory_path() / "gpuwhy_nvml_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  std::filesystem::path lib = std::filesystem::path(dir) / "libnvidia-ml.so.1";
  std::filesystem::copy_file(built, lib);
  std::filesystem::path script = std::filesystem::path(dir) / "script.txt";
  std::ofstream(script) << script_text;
  ::setenv("FAKE_NVML_SCRIPT", script.c_str(), 1);
  return lib.string();
}

inline MetricSeriesSet SampleTicks(NvmlSampler& sampler, int ticks) {
  SampleStore store(1024);
  for (int i = 0; i < ticks; ++i) sampler.Sample(i * kFakeNvmlTick, store);
  MetricSeriesSet set;
  set.source = "live";
  store.DrainInto(set);
  set.devices = sampler.devices();
  return set;
}

// GPU 0: sawtooth (9 ticks busy, 3 idle) with hardware thermal slowdown while busy;
// GPU 1: busy on a x8 gen-3 link of a x16 gen-4 slot, shared by two processes.
inline std::string PlatformScript() {
  std::string s =
      "devices 2\nrecord_size 24\n"
      "static 0 name=FakeH100 uuid=GPU-0 bus=00000000:17:00.0 smmax=1980 genmax=5 "
      "widthmax=16 total=81559 slow=90 plimit=700\n"
      "static 1 name=FakeH100 uuid=GPU-1 bus=00000000:65:00.0 smmax=1980 genmax=4 "
      "widthmax=16 total=81559 plimit=700\n";
  // Tick -1 is read by the sampler's probe; samples 0..59 read ticks 0..59.
  for (int i = -1; i < 60; ++i) {
    bool busy = (i + 12) % 12 < 9;
    s += "tick 0 util=" + std::string(busy ? "92" : "4") + " sm=" + (busy ? "1400" : "1980") +
         " throttle=" + (busy ? "0x40" : "0x1") +
         " used=30000 gen=5 width=16 power=650 "
         "temp=88 pids=4242:30000 tx=" +
         std::to_string((i + 1) * 1000000) + " rx=0\n";
    s += "tick 1 util=80 sm=1980 throttle=0x0 used=50000 gen=3 width=8 power=500 temp=60 "
         "pids=5000:20000,6000:30000\n";
  }
  return s;
}

}  // namespace gpuwhy
