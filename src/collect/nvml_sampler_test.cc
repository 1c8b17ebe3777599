// The NVML sampler through the real dlopen path, against a fake libnvidia-ml with scripted
// device states (fake_nvml/fake_nvml.cc): every series is sampled (src/serve's
// live_signals_test diagnoses them end to end), and an old driver's missing functions are
// skipped, not fatal.
#include "collect/nvml_sampler.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "collect/fake_nvml/fake_nvml_test_util.h"

namespace gpuwhy {
namespace nvml_sampler_test {

namespace fs = std::filesystem;
constexpr DurationNs kTick = kFakeNvmlTick;

TEST(NvmlSamplerTest, ScriptedDevicesAreSampled) {
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
  EXPECT_EQ(set.Find("gpu.mem_used_mib", 0)->value[0], 8000);   // MemoryInfo v1
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

}  // namespace nvml_sampler_test
}  // namespace gpuwhy
