// Every real metric log in ../shared/data imports, and its series match an independent
// Python reading of the same files (tests/metric_logs_truth.py ->
// tests/data/metric_logs_truth.tsv).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ingest/metrics/metric_log.h"

namespace gpuwhy {
namespace metric_log_real_data_test {

namespace fs = std::filesystem;

const fs::path kLogs = fs::path(GPUWHY_SHARED_DATA) / "logs";

struct Truth {
  std::string metric;
  int32_t device;
  std::string entity;
  size_t count;
  double mean;
};

std::map<std::string, std::vector<Truth>> ReadTruth() {
  std::ifstream in(fs::path(GPUWHY_TEST_DATA) / "metric_logs_truth.tsv");
  std::map<std::string, std::vector<Truth>> truth;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f(1);
    for (char c : line) {
      if (c == '\t') {
        f.emplace_back();
      } else {
        f.back().push_back(c);
      }
    }
    truth[f[0]].push_back({f[1], std::stoi(f[2]), f[3], std::stoul(f[4]), std::stod(f[5])});
  }
  return truth;
}

std::vector<std::string> RealLogs() {
  std::vector<std::string> out;
  for (const char* folder : {"dmon", "nvidia-smi", "dcgm"}) {
    for (const auto& entry : fs::directory_iterator(kLogs / folder)) {
      std::string name = entry.path().filename().string();
      // nvidia-smi/ also holds plain tables and nvlink status: only the query-gpu CSVs.
      if (std::string(folder) == "nvidia-smi" && name.find("querygpu_csv") == std::string::npos) {
        continue;
      }
      out.push_back(std::string(folder) + "/" + name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MetricLogRealDataTest, EveryLogImportsAndMatchesPython) {
  if (!fs::exists(kLogs / "dmon")) GTEST_SKIP() << "no " << kLogs << " (shared data absent)";
  auto truth = ReadTruth();
  ASSERT_FALSE(truth.empty()) << "tests/data/metric_logs_truth.tsv missing";
  std::vector<std::string> logs = RealLogs();
  ASSERT_GE(logs.size(), 25u);
  for (const std::string& rel : logs) {
    SCOPED_TRACE(rel);
    StatusOr<MetricSeriesSet> set = ImportMetricLog((kLogs / rel).string());
    ASSERT_TRUE(set.ok()) << set.status().message();
    EXPECT_EQ(set->problems.Get(DataProblem::kUnparsedLine), 0) << set->problems.Describe();
    ASSERT_TRUE(truth.count(rel)) << "no ground truth for " << rel;
    for (const Truth& t : truth[rel]) {
      const MetricSeries* s = set->Find(t.metric, t.device, t.entity);
      ASSERT_NE(s, nullptr) << t.metric << " device " << t.device << " " << t.entity;
      EXPECT_EQ(s->size(), t.count) << t.metric << " device " << t.device;
      EXPECT_NEAR(s->Mean(), t.mean, 1e-3) << t.metric << " device " << t.device;
    }
  }
}

TEST(MetricLogRealDataTest, FormatsAreSniffedByContent) {
  if (!fs::exists(kLogs / "dmon")) GTEST_SKIP() << "no " << kLogs << " (shared data absent)";
  for (const std::string& rel : RealLogs()) {
    MetricLogFormat f = SniffMetricLogFile((kLogs / rel).string());
    MetricLogFormat want =
        rel.find(".pmon") != std::string::npos            ? MetricLogFormat::kPmon
        : rel.find("dcgm/") == 0 && rel.ends_with(".csv") ? MetricLogFormat::kDcgmCsv
        : rel.find("dcgm/") == 0                          ? MetricLogFormat::kDcgmPrometheus
        : rel.find("querygpu") != std::string::npos       ? MetricLogFormat::kQueryGpuCsv
                                                          : MetricLogFormat::kDmon;
    EXPECT_EQ(f, want) << rel;
  }
}

TEST(MetricLogRealDataTest, QueryGpuKeepsIdentityAndThrottleReasons) {
  fs::path p = kLogs / "nvidia-smi" /
               "gpuexp_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.querygpu_csv.txt";
  if (!fs::exists(p)) GTEST_SKIP() << "no " << p;
  StatusOr<MetricSeriesSet> set = ImportMetricLog(p.string());
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_NE(set->Device(0), nullptr);
  EXPECT_EQ(set->Device(0)->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(set->Device(0)->pci_bus_id, "00000000:00:09.0");
  ASSERT_NE(set->Find("gpu.throttle_reasons", 0), nullptr);
  ASSERT_NE(set->Find("gpu.pcie_width_max", 0), nullptr);
  EXPECT_EQ(set->Find("gpu.pcie_width_max", 0)->value[0], 16);
  ASSERT_NE(set->Find("gpu.sm_clock_max_mhz", 0), nullptr);
  EXPECT_EQ(set->Find("gpu.sm_clock_max_mhz", 0)->value[0], 1980);
  EXPECT_FALSE(set->times_synthesized);  // the timestamp column was read
}

TEST(MetricLogRealDataTest, MigProfilerDcgmCsvIsOneEntityWithUnixSeconds) {
  fs::path p = kLogs / "dcgm" / "MIGProfiler_A100-80g_train_nlp_dcgm.csv";
  if (!fs::exists(p)) GTEST_SKIP() << "no " << p;
  StatusOr<MetricSeriesSet> set = ImportMetricLog(p.string());
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->source, "DCGM field CSV");
  EXPECT_EQ(set->DeviceIndices(), (std::vector<int32_t>{0}));
  EXPECT_TRUE(set->problems.empty());
  const MetricSeries* gr = set->Find("gpu.gr_engine_active_pct", 0);
  ASSERT_NE(gr, nullptr);
  EXPECT_EQ(gr->time.front(), 1661756603 * kNsPerSec);  // the first row's TimeStamp
  EXPECT_EQ(gr->time.back(), 1661763914 * kNsPerSec);   // the last row's
  EXPECT_LE(gr->Max(), 100);
  EXPECT_FALSE(set->times_synthesized);
}

TEST(MetricLogRealDataTest, DeepSpeechDmonHasFourGpusAtLowSm) {
  fs::path p = kLogs / "dmon" / "deepspeech_issue178_dmon_pucvmet_excerpt.txt";
  if (!fs::exists(p)) GTEST_SKIP() << "no " << p;
  StatusOr<MetricSeriesSet> set = ImportMetricLog(p.string());
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->DeviceIndices(), (std::vector<int32_t>{0, 1, 2, 3}));
  for (int32_t d = 0; d < 4; ++d) {
    const MetricSeries* sm = set->Find("gpu.util_pct", d);
    ASSERT_NE(sm, nullptr);
    EXPECT_GE(sm->Mean(), 18);
    EXPECT_LE(sm->Mean(), 25);
    EXPECT_NE(set->Find("gpu.mem_used_mib", d), nullptr);  // the fb column
  }
  EXPECT_TRUE(set->times_synthesized);
}

}  // namespace metric_log_real_data_test
}  // namespace gpuwhy
