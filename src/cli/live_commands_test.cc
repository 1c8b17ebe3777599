// gpuwhy run / record / watch / export-csv end to end on this machine (no GPU here: NVML is
// absent and reported as a note), and `gpuwhy analyze` on real metric logs.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "base/partial_file.h"
#include "cli/cli_test_util.h"
#include "collect/recording_file.h"
#include "ingest/metrics/metric_log.h"

namespace gpuwhy {
namespace live_commands_test {

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

// Gone: no such process, or a zombie nobody reaps (its parent was killed).
bool ProcessGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || text.substr(close + 2, 1) == "Z";
}

TEST(RunCommandTest, KillNineLeavesAReadableRecordingAndTakesTheJobAlong) {
  std::string dir = MakeScratchDir("gpuwhy_kill");
  const std::string rec = dir + "/run.rec";
  const std::string job_pid = dir + "/job.pid";
  const std::string job =
      "echo $$ > " + job_pid + ".tmp && mv " + job_pid + ".tmp " + job_pid + " && exec sleep 60";
  pid_t gpuwhy = fork();
  ASSERT_GE(gpuwhy, 0);
  if (gpuwhy == 0) {
    execl(GPUWHY_BINARY, "gpuwhy", "run", "--interval", "20", "-o", rec.c_str(), "--report",
          (dir + "/report.txt").c_str(), "--", "sh", "-c", job.c_str(), nullptr);
    _exit(127);
  }
  pid_t job_id = 0;
  for (int i = 0; i < 1000 && job_id == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream(job_pid) >> job_id;
  }
  ASSERT_GT(job_id, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // two flushes or more
  const TimeNs killed_at = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  ASSERT_EQ(kill(gpuwhy, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(gpuwhy, &status, 0), gpuwhy);
  ASSERT_TRUE(WIFSIGNALED(status));
  // The job goes with gpuwhy (PR_SET_PDEATHSIG) instead of running on unrecorded.
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ProcessGone(job_id);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!gone) kill(job_id, SIGKILL);
  EXPECT_TRUE(gone);
  // The final name was never half written; the partial file reads, cut where it was.
  EXPECT_FALSE(fs::exists(rec));
  const std::vector<std::string> partials = FindPartialFilesOf(rec);
  ASSERT_EQ(partials.size(), 1u);
  // analyze of the missing name points at it.
  Result missing = RunGpuwhy({"analyze", rec});
  EXPECT_NE(missing.err.find(partials[0]), std::string::npos) << missing.err;
  StatusOr<MetricSeriesSet> set = ImportMetricLog(partials[0]);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->problems.Get(DataProblem::kTruncated), 1);
  ASSERT_TRUE(set->Span().has_value());
  // At most the flush interval is lost, plus slack for a loaded test machine's scheduling.
  EXPECT_LE(killed_at - set->Span()->second, kRecordingFlushInterval + kNsPerSec);
  EXPECT_NE(set->Find("host.cpu_busy_pct"), nullptr);
  Result analyzed = RunGpuwhy({"analyze", partials[0]});
  EXPECT_EQ(analyzed.code, 0) << analyzed.err;
  fs::remove_all(dir);
}

TEST(RunCommandTest, AnOutputThatCannotBeWrittenStopsBeforeTheJobStarts) {
  std::string dir = MakeScratchDir("gpuwhy_run");
  Result r = RunGpuwhy({"run", "-o", dir + "/missing/run.rec", "--", "touch", dir + "/ran"});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/ran"));
  fs::remove_all(dir);
}

TEST(RunCommandTest, ARecordingThatCannotBeKeptExitsTwoAndNamesTheJobsStatus) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  std::string dir = MakeScratchDir("gpuwhy_run");
  Result r = RunGpuwhy({"run", "--interval", "20", "-o", "/dev/full", "--report",
                        dir + "/report.txt", "--", "sh", "-c", "sleep 0.2; exit 3"});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.err.find("write failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the command exited 3"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(RunCommandTest, ATooShortRunIsOneLineAndAReportHasATitle) {
  Result r = RunGpuwhy({"run", "--", "true"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("'true' exited 0 after 0."), std::string::npos) << r.err;
  std::string dir = MakeScratchDir("gpuwhy_run");
  Result longer =
      RunGpuwhy({"run", "--interval", "50", "--report", dir + "/report.txt", "--", "sleep", "1.2"});
  EXPECT_EQ(longer.code, 0) << longer.err;
  std::ifstream in(dir + "/report.txt");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "== gpuwhy run -- sleep 1.2");
  fs::remove_all(dir);
}

// A job that only sleeps while other processes keep every core busy is not CPU bound: the
// cores were the neighbours' (issue 21 saw host.cpu_saturated and "fewer DataLoader workers").
TEST(RunCommandTest, OtherProcessesCpuIsNotBlamedOnTheJob) {
  std::vector<pid_t> spinners;
  for (long i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); ++i) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;  // busy until killed
    }
    spinners.push_back(child);
  }
  Result r = RunGpuwhy({"run", "--interval", "50", "--format", "json", "--", "sleep", "2.5"});
  for (pid_t child : spinners) kill(child, SIGKILL);
  for (pid_t child : spinners) waitpid(child, nullptr, 0);
  ASSERT_EQ(r.code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.err).get(doc), simdjson::SUCCESS) << r.err;
  std::vector<std::string> ids;
  std::string tops;
  for (simdjson::dom::element f : doc["ranks"].at(0)["findings"].get_array()) {
    ids.emplace_back(std::string_view(f["id"].get_string().value()));
    for (simdjson::dom::element e : f["top_events"].get_array()) {
      tops += std::string(std::string_view(e.get_string().value())) + "\n";
    }
  }
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "host.cpu_saturated"), 0) << r.err;
  // The machine was saturated by the spinners (and whatever else runs here): contention, with
  // the busiest outsiders named.
  if (std::count(ids.begin(), ids.end(), "platform.cpu_contention") > 0) {
    EXPECT_NE(tops.find("pid "), std::string::npos) << tops;
  }
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

}  // namespace live_commands_test
}  // namespace gpuwhy
