// The exporter end to end on the fake libnvidia-ml (the real dlopen path): a throttled GPU
// with an Xid and a downgraded link shows up as gauges, counters and live findings, and the
// window stays bounded however long it runs.
#include "serve/live_exporter.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "collect/nvml_sampler.h"

namespace gpuwhy {
namespace live_exporter_test {

namespace fs = std::filesystem;

// A private copy of the fake per test: the fake keeps its scripted state per loaded copy.
std::string FakeNvml(const std::string& script_text) {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_serve_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  fs::path lib = fs::path(dir) / "libnvidia-ml.so.1";
  fs::copy_file(FAKE_NVML_PATH, lib);
  fs::path script = fs::path(dir) / "script.txt";
  std::ofstream(script) << script_text;
  ::setenv("FAKE_NVML_SCRIPT", script.c_str(), 1);
  return lib.string();
}

// One busy GPU held back by a hardware slowdown on a gen-1 link of a gen-4 slot, with an
// Xid 79 on its third sample.
std::string ThrottledScript() {
  std::string s =
      "devices 1\n"
      "static 0 name=FakeA100 uuid=GPU-abc bus=00000000:17:00.0 smmax=1410 genmax=4 "
      "widthmax=16 total=40960 plimit=400\n";
  for (int i = 0; i < 5; ++i) {
    s += "tick 0 util=95 sm=900 throttle=0x8 used=20000 gen=1 width=16 power=390 temp=70" +
         std::string(i == 3 ? " xid=79" : "") + "\n";
  }
  return s;
}

std::unique_ptr<SamplerThread> StartedSampler(const std::string& library) {
  std::vector<std::unique_ptr<Sampler>> samplers;
  samplers.push_back(std::make_unique<NvmlSampler>(library));
  auto thread = std::make_unique<SamplerThread>(std::move(samplers), 10 * kNsPerMs, 256);
  thread->Start();
  return thread;
}

TEST(LiveExporterTest, ThrottlingXidAndLinkBecomeMetricsAndFindings) {
  EndpointOptions endpoint_options;
  endpoint_options.port = 0;
  HttpEndpoint endpoint(endpoint_options);
  LiveExporterOptions options;
  options.version = "test";
  LiveExporter exporter(StartedSampler(FakeNvml(ThrottledScript())), options, endpoint);
  exporter.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ~30 samples at 100 Hz
  auto bodies = exporter.Refresh();
  exporter.Stop();

  const std::string& m = bodies->metrics;
  const std::string gpu = R"(gpu="0",uuid="GPU-abc",model="FakeA100")";
  EXPECT_NE(m.find("gpuwhy_gpu_utilization_ratio{" + gpu + "} 0.95"), std::string::npos) << m;
  EXPECT_NE(m.find("gpuwhy_gpu_throttle_active{" + gpu + ",reason=\"hw_slowdown\"} 1"),
            std::string::npos);
  EXPECT_NE(m.find("gpuwhy_gpu_xid_errors_total{" + gpu + ",code=\"79\"} 1"), std::string::npos);
  EXPECT_NE(m.find("gpuwhy_gpu_pcie_link_generation{" + gpu + "} 1"), std::string::npos);
  EXPECT_NE(m.find("gpuwhy_exporter_nvml_available 1"), std::string::npos);
  EXPECT_NE(m.find(R"(gpuwhy_finding_active{id="platform.throttling")"), std::string::npos) << m;
  EXPECT_NE(m.find(R"(gpuwhy_finding_active{id="platform.pcie_downgraded")"), std::string::npos);
  EXPECT_NE(bodies->findings_json.find("\"platform.throttling\""), std::string::npos);
  EXPECT_TRUE(bodies->ready);
}

// `gpuwhy serve --set` reaches the live findings: the same throttled GPU, with the rule's
// threshold above the throttled share, serves no throttling finding.
TEST(LiveExporterTest, RuleOverridesChangeTheLiveFindings) {
  EndpointOptions endpoint_options;
  endpoint_options.port = 0;
  HttpEndpoint endpoint(endpoint_options);
  LiveExporterOptions options;
  options.version = "test";
  ASSERT_TRUE(options.diagnose.catalog.ApplyOverride("platform.throttling.min_time_pct=101").ok());
  LiveExporter exporter(StartedSampler(FakeNvml(ThrottledScript())), options, endpoint);
  exporter.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto bodies = exporter.Refresh();
  exporter.Stop();
  EXPECT_EQ(bodies->metrics.find(R"(gpuwhy_finding_active{id="platform.throttling")"),
            std::string::npos);
  // A finding's id field (the checklist still lists the rule among those it ran).
  EXPECT_EQ(bodies->findings_json.find("\"id\": \"platform.throttling\""), std::string::npos);
  // The override silences one rule only.
  EXPECT_NE(bodies->findings_json.find("\"id\": \"platform.pcie_downgraded\""), std::string::npos);
}

TEST(LiveExporterTest, WindowStaysBoundedByTime) {
  EndpointOptions endpoint_options;
  endpoint_options.port = 0;
  HttpEndpoint endpoint(endpoint_options);
  LiveExporterOptions options;
  options.window = 50 * kNsPerMs;
  LiveExporter exporter(StartedSampler(FakeNvml(ThrottledScript())), options, endpoint);
  exporter.Start();
  size_t most = 0;
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    exporter.Refresh();
    const MetricSeries* util = exporter.window().Find("gpu.util_pct", 0);
    ASSERT_NE(util, nullptr);
    most = std::max(most, util->size());
  }
  exporter.Stop();
  // 50 ms at 100 Hz is about 5 samples (a slow tick can add one or two).
  EXPECT_LE(most, 8u);
  EXPECT_GE(most, 1u);
}

TEST(LiveExporterTest, NoNvmlIsStatedNotFatal) {
  EndpointOptions endpoint_options;
  endpoint_options.port = 0;
  HttpEndpoint endpoint(endpoint_options);
  LiveExporter exporter(StartedSampler("/nonexistent/libnvidia-ml.so.1"), {}, endpoint);
  exporter.Start();
  auto bodies = exporter.Refresh();
  exporter.Stop();
  EXPECT_NE(bodies->metrics.find("gpuwhy_exporter_nvml_available 0"), std::string::npos);
  EXPECT_NE(bodies->findings_json.find("nvml"), std::string::npos) << bodies->findings_json;
}

}  // namespace live_exporter_test
}  // namespace gpuwhy
