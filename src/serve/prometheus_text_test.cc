// The exposition text: valid format 0.0.4 line by line, base units, escaped labels, bounded
// label sets, and only families that ExportedFamilies() documents.
#include "report/prometheus_text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace gpuwhy {
namespace prometheus_text_test {

constexpr TimeNs kSec = kNsPerSec;

MetricSeriesSet TwoGpus() {
  MetricSeriesSet set;
  set.source = "live";
  for (int32_t d = 0; d < 2; ++d) {
    SeriesDevice& dev = set.GetOrCreateDevice(d);
    dev.uuid = "GPU-" + std::to_string(d);
    dev.name = d == 0 ? "Fake \"H100\" \\ 80GB" : "FakeH100";
  }
  for (int i = 0; i < 3; ++i) {
    set.Add({"gpu.util_pct", 0, ""}, "%", i * kSec, 50);
    set.Add({"gpu.util_pct", 1, ""}, "%", i * kSec, 100);
  }
  set.Add({"gpu.mem_used_mib", 0, ""}, "MiB", 2 * kSec, 1024);
  set.Add({"gpu.sm_clock_mhz", 0, ""}, "MHz", 2 * kSec, 1410);
  set.Add({"gpu.throttle_reasons", 0, ""}, "bitmask", 2 * kSec, 0x40 | 0x1);
  set.Add({"gpu.pcie_gen", 1, "sysfs"}, "gen", 2 * kSec, 3);  // only sysfs knows GPU 1's link
  set.Add({"host.cpu_busy_pct", -1, ""}, "%", 2 * kSec, 25);
  set.Add({"host.cpu_busy_pct", -1, "cpu3"}, "%", 2 * kSec, 100);  // per core: not exported
  for (int p = 0; p < 5; ++p) {
    auto& s = set.GetOrCreate({"gpu.process_mem_mib", 0, "pid " + std::to_string(100 + p)}, "MiB");
    s.label = "python";
    s.Add(2 * kSec, 1000.0 * (p + 1));
  }
  return set;
}

// Every line is a HELP, a TYPE or a sample; HELP and TYPE come once per family, before its
// samples; families are contiguous. Returns the samples by name{labels}.
std::map<std::string, double> ParseExposition(const std::string& text) {
  static const std::regex kSample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\\\|\\"|\\n)*",?)*\})? (\S+)$)");
  static const std::regex kComment(R"(^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$)");
  std::map<std::string, double> samples;
  std::set<std::string> typed, finished;
  std::string current;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kComment)) {
      std::string name = m[2];
      if (m[1] == "TYPE") {
        EXPECT_TRUE(typed.insert(name).second) << "TYPE twice: " << line;
        EXPECT_TRUE(m[3] == "gauge" || m[3] == "counter") << line;
        if (m[3] == "counter") {
          EXPECT_TRUE(name.ends_with("_total")) << line;
        }
      }
      if (name != current) {
        if (!current.empty()) finished.insert(current);
        EXPECT_EQ(finished.count(name), 0u) << "family split: " << name;
        current = name;
      }
      continue;
    }
    if (!std::regex_match(line, m, kSample)) {
      ADD_FAILURE() << "not exposition format: " << line;
      continue;
    }
    EXPECT_EQ(m[1], current) << "sample outside its family: " << line;
    EXPECT_EQ(typed.count(m[1]), 1u) << line;
    std::string key = line.substr(0, line.rfind(' '));
    EXPECT_TRUE(samples.emplace(key, std::stod(m[m.size() - 1])).second) << "duplicate: " << line;
  }
  return samples;
}

TEST(PrometheusTextTest, ValidFormatInBaseUnitsWithEscapedLabels) {
  MetricSeriesSet set = TwoGpus();
  LiveExport live;
  live.window = &set;
  live.idle_ratio = {{0, 0.5}, {1, 0.0}};
  live.totals[{"gpu.xid", 0, "code 79"}] = 2;
  live.totals[{"gpu.pcie_tx_mbps", 0, ""}] = 3e9;
  Diagnosis d;
  Finding f;
  f.id = "platform.throttling";
  f.bottleneck_class = BottleneckClass::kPlatform;
  f.severity = Severity::kHigh;
  d.findings.push_back(f);
  live.findings = &d;
  live.self.version = "0.1.0";
  std::string text = RenderPrometheusText(live);
  auto samples = ParseExposition(text);

  const std::string gpu0 = R"(gpu="0",uuid="GPU-0",model="Fake \"H100\" \\ 80GB")";
  const std::string gpu1 = R"(gpu="1",uuid="GPU-1",model="FakeH100")";
  EXPECT_DOUBLE_EQ(samples.at("gpuwhy_gpu_utilization_ratio{" + gpu0 + "}"), 0.5);
  EXPECT_DOUBLE_EQ(samples.at("gpuwhy_gpu_utilization_ratio{" + gpu1 + "}"), 1.0);
  EXPECT_DOUBLE_EQ(samples.at("gpuwhy_gpu_memory_used_bytes{" + gpu0 + "}"), 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(samples.at("gpuwhy_gpu_sm_clock_hertz{" + gpu0 + "}"), 1.41e9);
  EXPECT_EQ(samples.at("gpuwhy_gpu_throttle_active{" + gpu0 + ",reason=\"hw_thermal\"}"), 1);
  EXPECT_EQ(samples.at("gpuwhy_gpu_throttle_active{" + gpu0 + ",reason=\"sw_power_cap\"}"), 0);
  EXPECT_EQ(samples.at("gpuwhy_gpu_pcie_link_generation{" + gpu1 + "}"), 3);
  EXPECT_EQ(samples.at("gpuwhy_gpu_xid_errors_total{" + gpu0 + ",code=\"79\"}"), 2);
  EXPECT_EQ(samples.at("gpuwhy_gpu_pcie_transmit_bytes_total{" + gpu0 + "}"), 3e9);
  EXPECT_EQ(samples.at("gpuwhy_idle_ratio{" + gpu0 + "}"), 0.5);
  EXPECT_EQ(
      samples.at(
          R"(gpuwhy_finding_active{id="platform.throttling",class="platform",severity="high"})"),
      1);
  EXPECT_EQ(samples.at("gpuwhy_host_cpu_utilization_ratio"), 0.25);
  EXPECT_EQ(samples.at("gpuwhy_exporter_build_info{version=\"0.1.0\"}"), 1);
  // Per-process series are opt-in; per-core host series are never exported.
  EXPECT_EQ(text.find("pid="), std::string::npos);
  EXPECT_EQ(text.find("cpu3"), std::string::npos);

  std::set<std::string> documented;
  for (const ExportedFamily& family : ExportedFamilies())
    documented.insert(std::string(family.name));
  for (const auto& [key, value] : samples) {
    EXPECT_EQ(documented.count(key.substr(0, key.find('{'))), 1u) << key;
  }
}

TEST(PrometheusTextTest, PerProcessIsCappedToTheLargest) {
  MetricSeriesSet set = TwoGpus();
  LiveExport live;
  live.window = &set;
  live.per_process = true;
  live.top_processes = 2;
  auto samples = ParseExposition(RenderPrometheusText(live));
  int processes = 0;
  for (const auto& [key, value] : samples) {
    if (key.starts_with("gpuwhy_gpu_process_memory_bytes")) {
      ++processes;
      EXPECT_GE(value, 4000.0 * 1024 * 1024) << key;  // pids 103 and 104 only
    }
  }
  EXPECT_EQ(processes, 2);
}

TEST(PrometheusTextTest, EmptyWindowStillServesTheExporterItself) {
  MetricSeriesSet empty;
  LiveExport live;
  live.window = &empty;
  auto samples = ParseExposition(RenderPrometheusText(live));
  EXPECT_EQ(samples.at("gpuwhy_exporter_nvml_available"), 0);
  EXPECT_EQ(samples.count("gpuwhy_exporter_samples_total"), 1u);
}

TEST(PrometheusTextTest, EveryFamilyIsNamedByTheConventions) {
  static const std::regex kName("^gpuwhy_[a-z0-9_]+$");
  for (const ExportedFamily& f : ExportedFamilies()) {
    EXPECT_TRUE(std::regex_match(std::string(f.name), kName)) << f.name;
    EXPECT_EQ(f.type == "counter", f.name.ends_with("_total")) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
  }
}

// A pod name of 81 bytes: in the job label "ml/NAME" bytes 63 and 64 are one two-byte
// UTF-8 letter, which a cut at 63 bytes must not split.
std::string LongPodName(int i) {
  return fmt::format("trainer-{:02}-", i) + std::string(48, 'x') + "\xc3\xa9" +
         std::string(20, 'y');
}

TEST(PrometheusTextTest, JobLabelsAreCutCappedAndTheBoundIsStated) {
  MetricSeriesSet set;
  LiveExport live;
  live.window = &set;
  live.per_process = true;
  live.top_processes = 30;
  for (int i = 0; i < 30; ++i) {
    int pid = 1000 + i;
    auto& s = set.GetOrCreate({"gpu.process_mem_mib", 0, fmt::format("pid {}", pid)}, "MiB");
    s.label = "python";
    s.Add(kSec, 30000.0 - i);  // pid 1000 is the largest: exported first
    ProcessJobLabels& job = live.process_jobs[pid];
    job.pod = LongPodName(i);
    job.pod_namespace = "ml";
    job.job = "ml/" + job.pod;
    job.container = "containerd://" + std::string(12, static_cast<char>('a' + i % 6));
  }
  set.GetOrCreate({"gpu.process_mem_mib", 0, "pid 999"}, "MiB").Add(kSec, 1);  // no job
  live.top_processes = 31;
  std::string text = RenderPrometheusText(live);
  auto samples = ParseExposition(text);

  static const std::regex kLabel(R"(([a-z_]+)="((?:[^"\\]|\\.)*)\")");
  std::set<std::string> label_sets;
  int overflow = 0, info = 0;
  for (const auto& [key, value] : samples) {
    std::string rest = key;
    for (std::smatch m; std::regex_search(rest, m, kLabel); rest = m.suffix()) {
      if (m[1] == "job" || m[1] == "pod" || m[1] == "namespace" || m[1] == "container") {
        EXPECT_LE(m[2].length(), kJobLabelMaxChars) << key;
      }
    }
    if (!key.starts_with("gpuwhy_process_job_info{")) continue;
    ++info;
    overflow += key.find(fmt::format("job=\"{}\"", kJobLabelOverflow)) != std::string::npos;
    label_sets.insert(key.substr(key.find(",job=")));  // all but the pid
  }
  EXPECT_EQ(info, 30);  // pid 999 has no job: no info row to join
  EXPECT_EQ(overflow, 30 - static_cast<int>(kJobLabelMaxSets));
  EXPECT_EQ(label_sets.size(), kJobLabelMaxSets + 1);
  // The largest process keeps its labels, cut before the letter the limit would split.
  std::string cut = "ml/" + LongPodName(0).substr(0, 59);
  EXPECT_EQ(cut.size(), 62u);
  EXPECT_NE(text.find("gpuwhy_gpu_process_memory_bytes{gpu=\"0\",uuid=\"\",model=\"\",pid=\"1000\","
                      "name=\"python\",job=\"" +
                      cut + "\"} "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pid=\"999\",name=\"\",job=\"\"}"), std::string::npos);
  // The bound is in the HELP text, as the constants set it.
  for (const ExportedFamily& f : ExportedFamilies()) {
    if (f.name != "gpuwhy_process_job_info") continue;
    EXPECT_NE(f.help.find(fmt::format("cut to {} characters", kJobLabelMaxChars)),
              std::string_view::npos);
    EXPECT_NE(f.help.find(fmt::format("at most {} distinct label sets", kJobLabelMaxSets)),
              std::string_view::npos);
    EXPECT_NE(f.help.find(fmt::format("job=\"{}\"", kJobLabelOverflow)), std::string_view::npos);
  }
}

TEST(PrometheusTextTest, NoJobLabelsWhenNoProcessHasAJob) {
  MetricSeriesSet set = TwoGpus();
  LiveExport live;
  live.window = &set;
  live.per_process = true;
  std::string text = RenderPrometheusText(live);
  EXPECT_EQ(text.find("job="), std::string::npos);
  EXPECT_EQ(text.find("gpuwhy_process_job_info"), std::string::npos);
}

}  // namespace prometheus_text_test
}  // namespace gpuwhy
