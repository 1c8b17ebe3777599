// The NVML sampler through the real dlopen path, against a fake libnvidia-ml with scripted
// device states (fake_nvml/fake_nvml.cc): each platform signal is recognised end to end, and
// an old driver's missing functions are skipped, not fatal.
#include "collect/nvml_sampler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "diagnose/diagnose_signals.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;
constexpr DurationNs kTick = 100 * kNsPerMs;

// Each test loads its own copy of the fake, so the fake's state starts fresh.
std::string FreshLibrary(const char* built, const std::string& script_text) {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_nvml_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  fs::path lib = fs::path(dir) / "libnvidia-ml.so.1";
  fs::copy_file(built, lib);
  fs::path script = fs::path(dir) / "script.txt";
  std::ofstream(script) << script_text;
  ::setenv("FAKE_NVML_SCRIPT", script.c_str(), 1);
  return lib.string();
}

MetricSeriesSet SampleTicks(NvmlSampler& sampler, int ticks) {
  SampleStore store(1024);
  for (int i = 0; i < ticks; ++i) sampler.Sample(i * kTick, store);
  MetricSeriesSet set;
  set.source = "live";
  store.DrainInto(set);
  set.devices = sampler.devices();
  return set;
}

// GPU 0: sawtooth (9 ticks busy, 3 idle) with hardware thermal slowdown while busy;
// GPU 1: busy on a x8 gen-3 link of a x16 gen-4 slot, shared by two processes.
std::string PlatformScript() {
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
         " throttle=" + (busy ? "0x40" : "0x1") + " used=30000 gen=5 width=16 power=650 "
         "temp=88 pids=4242:30000 tx=" + std::to_string((i + 1) * 1000000) + " rx=0\n";
    s += "tick 1 util=80 sm=1980 throttle=0x0 used=50000 gen=3 width=8 power=500 temp=60 "
         "pids=5000:20000,6000:30000\n";
  }
  return s;
}

TEST(NvmlSamplerTest, PlatformSignalsFromScriptedDevicesAreRecognised) {
  NvmlSampler sampler(FreshLibrary(FAKE_NVML_PATH, PlatformScript()));
  ASSERT_TRUE(sampler.Probe().ok());
  ASSERT_EQ(sampler.devices().size(), 2u);
  EXPECT_EQ(sampler.devices()[1].pci_bus_id, "00000000:65:00.0");
  EXPECT_EQ(sampler.devices()[0].uuid, "GPU-0");
  MetricSeriesSet set = SampleTicks(sampler, 60);
  EXPECT_EQ(sampler.process_record_size(), 24u);
  ASSERT_NE(set.Find("gpu.util_pct", 0), nullptr);
  EXPECT_EQ(set.Find("gpu.util_pct", 0)->size(), 60u);
  EXPECT_EQ(set.Find("gpu.mem_total_mib", 1)->value[0], 81559);  // through MemoryInfo_v2
  // tx grows 1 MB per 100 ms tick: 10 MB/s.
  ASSERT_NE(set.Find("gpu.pcie_tx_mbps", 0), nullptr);
  EXPECT_NEAR(set.Find("gpu.pcie_tx_mbps", 0)->Mean(), 10.0, 1e-6);
  Diagnosis d = DiagnoseSignals(set);
  const Finding* saw = d.Find("input.starvation_pattern");
  ASSERT_NE(saw, nullptr);
  EXPECT_NE(saw->title.find("period 1.2 s"), std::string::npos) << saw->title;
  const Finding* thr = d.Find("platform.throttling");
  ASSERT_NE(thr, nullptr);
  EXPECT_NE(thr->title.find("hardware thermal slowdown 75%"), std::string::npos) << thr->title;
  const Finding* con = d.Find("platform.contention");
  ASSERT_NE(con, nullptr);
  EXPECT_EQ(con->evidence[0].metric.scope.device, 1);
  const Finding* pcie = d.Find("platform.pcie_downgraded");
  ASSERT_NE(pcie, nullptr);
  EXPECT_NE(pcie->title.find("gen 3 x8"), std::string::npos) << pcie->title;
  EXPECT_EQ(d.Find("platform.pcie_downgraded")->evidence.size(), 1u);  // GPU 0's link is fine
}

TEST(NvmlSamplerTest, OldDriverWithoutVersionedFunctionsStillSamples) {
  std::string script =
      "devices 1\nrecord_size 16\nstatic 0 total=16000\n"
      "tick 0 util=50 used=8000 throttle=0x4 pids=1:100,2:200,3:300\n";
  NvmlSampler sampler(FreshLibrary(FAKE_NVML_OLD_PATH, script));
  ASSERT_TRUE(sampler.Probe().ok());
  MetricSeriesSet set = SampleTicks(sampler, 5);
  ASSERT_FALSE(sampler.notes().empty());
  const std::string note = sampler.notes()[0];
  for (const char* missing : {"nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetFieldValues",
                              "nvmlDeviceGetSamples", "nvmlEventSetCreate"}) {
    EXPECT_NE(note.find(missing), std::string::npos) << missing << " in " << note;
  }
  EXPECT_EQ(set.Find("gpu.util_pct", 0)->size(), 5u);
  EXPECT_EQ(set.Find("gpu.mem_used_mib", 0)->value[0], 8000);  // MemoryInfo v1
  EXPECT_EQ(set.Find("gpu.throttle_reasons", 0)->value[0], 4);  // ...ThrottleReasons name
  EXPECT_EQ(sampler.process_record_size(), 16u);
  EXPECT_EQ(set.FindAll("gpu.process_seen", 0).size(), 3u);
  EXPECT_EQ(set.Find("gpu.process_mem_mib", 0, "pid 3")->value[0], 300);
  EXPECT_EQ(set.Find("gpu.pcie_tx_mbps", 0), nullptr);  // no field values on this driver
}

TEST(NvmlSamplerTest, ThirtyTwoByteProcessRecordsAreProbed) {
  std::string script = "devices 1\nrecord_size 32\ntick 0 util=1 pids=10:1,20:2,30:3\n";
  NvmlSampler sampler(FreshLibrary(FAKE_NVML_PATH, script));
  ASSERT_TRUE(sampler.Probe().ok());
  MetricSeriesSet set = SampleTicks(sampler, 1);
  EXPECT_EQ(sampler.process_record_size(), 32u);
  EXPECT_NE(set.Find("gpu.process_seen", 0, "pid 30"), nullptr);
  EXPECT_EQ(set.Find("gpu.process_mem_mib", 0, "pid 20")->value[0], 2);
}

TEST(NvmlSamplerTest, XidEventsAreRecorded) {
  std::string script = "devices 1\ntick 0 util=1\ntick 0 util=1 xid=79\n";
  NvmlSampler sampler(FreshLibrary(FAKE_NVML_PATH, script));
  ASSERT_TRUE(sampler.Probe().ok());
  MetricSeriesSet set = SampleTicks(sampler, 3);
  ASSERT_NE(set.Find("gpu.xid", 0), nullptr);
  EXPECT_EQ(set.Find("gpu.xid", 0)->value[0], 79);
}

TEST(NvmlSamplerTest, NoLibraryIsAClearMessage) {
  NvmlSampler sampler("/nonexistent/libnvidia-ml.so.1");
  Status status = sampler.Probe();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("NVML not found (/nonexistent/libnvidia-ml.so.1)"),
            std::string::npos)
      << status.message();
}

TEST(NvmlSamplerTest, ProbeFindsTheSmallestUntouchedStride) {
  std::vector<unsigned char> buf(4 * 32, 0xA5);
  for (size_t i = 0; i < 2 * 24; ++i) buf[i] = static_cast<unsigned char>(i);  // 2 x 24 bytes
  EXPECT_EQ(ProbeProcessRecordSize(buf.data(), buf.size(), 2, 0xA5), 24u);
}

}  // namespace
}  // namespace gpuwhy
