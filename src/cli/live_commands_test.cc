// gpuwhy run / record / watch / export-csv end to end on this machine (no GPU here: NVML is
// absent and reported as a note), and `gpuwhy analyze` on real metric logs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/cli_test_util.h"
#include "ingest/metrics/metric_log.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;
const fs::path kLogs = fs::path(GPUWHY_SHARED_DATA) / "logs";

TEST(RunCommandTest, ExitCodePassesThroughAndTheReportIsWritten) {
  std::string dir = MakeScratchDir("gpuwhy_run");
  Result r = RunGpuwhy({"run", "--interval", "20", "--format", "json", "--report",
                        dir + "/report.json", "--", "sh", "-c", "sleep 0.3; exit 3"});
  EXPECT_EQ(r.code, 3) << r.err;
  std::ifstream in(dir + "/report.json");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"ranks\""), std::string::npos);
  EXPECT_NE(json.find("host.cpu_saturated"), std::string::npos);  // outcomes are listed
  fs::remove_all(dir);
}

TEST(RunCommandTest, RecordsTheBusyChildsThreads) {
  std::string dir = MakeScratchDir("gpuwhy_run");
  const std::string rec = dir + "/run.gpuwhy";
  // awk counting for about a second of CPU: the busiest thread of the job's tree.
  Result r = RunGpuwhy({"run", "--interval", "20", "-o", rec, "--report", dir + "/r.txt", "--",
                        "awk", "BEGIN{for(i=0;i<3e7;i++)s+=i}"});
  ASSERT_EQ(r.code, 0) << r.err;
  StatusOr<MetricSeriesSet> set = ImportMetricLog(rec);
  ASSERT_TRUE(set.ok()) << set.status().message();
  const MetricSeries* top = nullptr;
  for (const MetricSeries* t : set->FindAll("thread.cpu_pct")) {
    if (top == nullptr || t->Mean() > top->Mean()) top = t;
  }
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->label, "awk");
  EXPECT_GT(top->Max(), 0);  // its share depends on what else this machine runs
  EXPECT_GT(set->sampler_cpu_pct, 0);
  EXPECT_NE(set->Find("host.cpu_busy_pct"), nullptr);
  // No GPU on this machine: said, not failed.
  bool nvml_note = false;
  for (const std::string& note : set->notes) nvml_note |= note.find("NVML") != std::string::npos;
  EXPECT_TRUE(nvml_note);
  // The recording analyses like any metric log.
  Result a = RunGpuwhy({"analyze", rec});
  EXPECT_EQ(a.code, 0) << a.err;
  fs::remove_all(dir);
}

TEST(RunCommandTest, UnknownCommandIs127) {
  Result r = RunGpuwhy({"run", "--", "/nonexistent/cmd"});
  EXPECT_EQ(r.code, 127);
  EXPECT_NE(r.err.find("cannot run"), std::string::npos);
}

TEST(RecordCommandTest, RecordsForADurationAndExportsCsv) {
  std::string dir = MakeScratchDir("gpuwhy_rec");
  const std::string rec = dir + "/host.gpuwhy";
  Result r = RunGpuwhy({"record", "-o", rec, "--interval", "20", "--duration", "0.5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("recorded"), std::string::npos);
  Result csv = RunGpuwhy({"export-csv", rec});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "time_s,device,entity,metric,unit,value");
  EXPECT_NE(csv.out.find(",host.cpu_busy_pct,%,"), std::string::npos);
  fs::remove_all(dir);
}

TEST(WatchCommandTest, OneLinePerSampleWhenNotATerminal) {
  Result r = RunGpuwhy({"watch", "--interval", "20", "--count", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::regex line(R"(\d\d:\d\d:\d\d.*\| cpu \d+%.*)");
  int lines = 0;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l); ++lines) EXPECT_TRUE(std::regex_match(l, line)) << l;
  EXPECT_EQ(lines, 3);
}

TEST(AnalyzeMetricLogTest, DeepSpeechDmonYieldsLowUtilization) {
  fs::path log = kLogs / "dmon" / "deepspeech_issue178_dmon_pucvmet_excerpt.txt";
  if (!fs::exists(log)) GTEST_SKIP() << "shared data absent: " << log;
  Result r = RunGpuwhy({"analyze", log.string(), "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("compute.low_gpu_utilization"), std::string::npos);
  Result csv = RunGpuwhy({"export-csv", log.string()});
  EXPECT_EQ(csv.code, 0);
  // Every column has a series; '-' is skipped: python3 -c "print(sum(1 for l in open(F) if not
  // l.startswith('#') for v in l.split()[1:] if v != '-'))" = 60 (4 GPUs x 15)
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 60 + 1);
}

TEST(AnalyzeMetricLogTest, ProseIsNotAMetricLog) {
  std::string dir = MakeScratchDir("gpuwhy_log");
  std::ofstream(dir + "/notes.txt") << "hello\n";
  Result r = RunGpuwhy({"analyze", dir + "/notes.txt"});
  EXPECT_EQ(r.code, 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy
