// The exporter end to end on the fake libnvidia-ml (the real dlopen path): a throttled GPU
// with an Xid and a downgraded link shows up as gauges, counters and live findings, and the
// window stays bounded however long it runs.
#include "serve/live_exporter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collect/job_identity_test_util.h"
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

// GPU processes of a Kubernetes pod, a Slurm step and a podman container, on a node whose
// /proc is the cgroup v2 fixture tree (tests/data/jobs): --per-process names their jobs.
std::string ProcessesScript() {
  std::string s =
      "devices 1\n"
      "static 0 name=FakeH100 uuid=GPU-jobs bus=00000000:17:00.0 total=81920\n";
  for (int i = 0; i < 3; ++i) {
    s += "tick 0 util=90 used=60000 pids=4242:30000,5151:20000,6161:10000,31337:500\n";
  }
  return s;
}

std::shared_ptr<const PublishedBodies> ServedJobBodies(const std::string& proc_root) {
  EndpointOptions endpoint_options;
  endpoint_options.port = 0;
  HttpEndpoint endpoint(endpoint_options);
  LiveExporterOptions options;
  options.per_process = true;
  options.proc_root = proc_root;
  LiveExporter exporter(StartedSampler(FakeNvml(ProcessesScript())), options, endpoint);
  exporter.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto bodies = exporter.Refresh();
  exporter.Stop();
  return bodies;
}

std::string ServedJobs(const std::string& proc_root) { return ServedJobBodies(proc_root)->metrics; }

TEST(LiveExporterTest, PerProcessSeriesNameTheirJobs) {
  std::string m = ServedJobs(std::string(GPUWHY_SOURCE_DIR) + "/tests/data/jobs/v2");
  EXPECT_NE(m.find(R"(pid="4242",name="",job="ml-team/trainer-0"})"), std::string::npos) << m;
  EXPECT_NE(m.find(R"(gpuwhy_process_job_info{pid="4242",job="ml-team/trainer-0",pod="trainer-0",)"
                   R"(pod_uid="0b9d6c6e-5f1a-4c7e-9a53-2d7e8f1c4b21",namespace="ml-team",)"
                   R"(slurm_job="",slurm_step="",container="containerd://3f2a9c1b07de"} 1)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(R"(gpuwhy_process_job_info{pid="5151",job="slurm 4242.0",pod="",pod_uid="",)"
                   R"(namespace="",slurm_job="4242",slurm_step="0",container=""} 1)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(R"(pid="6161",job="podman 5d4c3b2a1908",)"), std::string::npos) << m;
  // A process no scheduler runs (and one gone from /proc) has an empty job and no info row.
  EXPECT_NE(m.find(R"(pid="31337",name="",job=""})"), std::string::npos) << m;
  EXPECT_EQ(m.find(R"(gpuwhy_process_job_info{pid="31337")"), std::string::npos);
}

// A node whose kubelet serves pod-resources: /findings says the socket is there and is not
// queried (gpuwhy speaks no gRPC); pods are still named by their cgroup UID.
TEST(LiveExporterTest, PodResourcesSocketIsSaidNotQueried) {
  fs::path root = fs::temp_directory_path() / fmt::format("gpuwhy_serve_jobs_{}", ::getpid());
  fs::create_directories(root / "proc/4242");
  fs::copy_file(std::string(GPUWHY_SOURCE_DIR) + "/tests/data/jobs/v1/proc/4242/cgroup",
                root / "proc/4242/cgroup");
  int fd = BindPodResourcesSocket(root);
  ASSERT_GE(fd, 0);
  auto bodies = ServedJobBodies(root.string());
  ::close(fd);
  fs::remove_all(root);
  EXPECT_NE(bodies->findings_json.find("pod-resources socket is present"), std::string::npos)
      << bodies->findings_json;
  EXPECT_NE(
      bodies->metrics.find(R"(pid="4242",name="",job="pod 0b9d6c6e-5f1a-4c7e-9a53-2d7e8f1c4b21"})"),
      std::string::npos)
      << bodies->metrics;
}

// The served text passes Prometheus' own linter (promtool check metrics), job labels and all.
TEST(LiveExporterTest, PromtoolAcceptsTheServedText) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (Debian: prometheus package): exposition not linted";
  }
  std::string m = ServedJobs(std::string(GPUWHY_SOURCE_DIR) + "/tests/data/jobs/v2");
  fs::path file = fs::temp_directory_path() / fmt::format("gpuwhy_promtool_{}.txt", ::getpid());
  std::ofstream(file) << m;
  fs::path out = file.string() + ".out";
  int rc = std::system(
      fmt::format("promtool check metrics < '{}' > '{}' 2>&1", file.string(), out.string())
          .c_str());
  std::ifstream lint(out);
  std::string said((std::istreambuf_iterator<char>(lint)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << said << "\n" << m;
  fs::remove(file);
  fs::remove(out);
}

}  // namespace live_exporter_test
}  // namespace gpuwhy
