// The pipeline end to end on small inputs written here: the kind table (which input becomes
// which role), the order of ranks and failures in the Report, and that the rule catalog
// passed in is the one the diagnosis uses.
#include "pipeline/pipeline.h"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "synth/synth.h"

namespace gpuwhy {
namespace pipeline_test {

namespace fs = std::filesystem;

class PipelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("gpuwhy_pipeline_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    SynthOptions synth;
    synth.scenario = "input-bound";
    synth.steps = 6;
    ASSERT_TRUE(WriteSyntheticTrace(synth, Path("input.json")).ok());
    Write("dmon.txt",
          "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n"
          "# Idx     W     C     C     %     %     %     %   MHz   MHz\n"
          "    0    70    40     -    20    10     0     0  1593  1380\n"
          "    0    71    41     -    25    12     0     0  1593  1380\n");
    Write("dmesg.txt",
          "[    5.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n");
    Write("snapshot.pickle", std::string("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94.", 14));
    Write("summary.txt", "|  PyTorch CUDA memory summary, device ID 0  |\n");
    Write("empty.json", "");
    Write("prose.txt", "nothing a tool would read\n");
    Write("nccl_oom.log",
          "node1:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
          "node1:1:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
          "total capacity of 79.15 GiB of which 1.23 GiB is free.\n");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string Path(const std::string& name) { return (dir_ / name).string(); }
  static void Write(const std::string& name, const std::string& bytes) {
    std::ofstream(Path(name), std::ios::binary) << bytes;
  }
  static inline fs::path dir_;
};

InputRole RoleOf(const std::string& path, const InputPolicy& policy = {}) {
  std::vector<PlannedInput> plan = PlanInputs({path}, policy);
  EXPECT_EQ(plan.size(), 1u) << path;
  return plan.empty() ? InputRole::kFailed : plan.front().role;
}

TEST_F(PipelineTest, EveryKindHasOneRole) {
  EXPECT_EQ(RoleOf(Path("input.json")), InputRole::kTrace);
  EXPECT_EQ(RoleOf(Path("dmon.txt")), InputRole::kMetricLog);
  EXPECT_EQ(RoleOf(Path("dmesg.txt")), InputRole::kNodeLog);
  EXPECT_EQ(RoleOf(Path("snapshot.pickle")), InputRole::kMemorySnapshot);
  EXPECT_EQ(RoleOf(Path("summary.txt")), InputRole::kMemorySnapshot);
  EXPECT_EQ(RoleOf(Path("empty.json")), InputRole::kFailed);
  EXPECT_EQ(RoleOf(Path("prose.txt")), InputRole::kFailed);
  EXPECT_EQ(RoleOf(Path("missing.json")), InputRole::kFailed);
}

TEST_F(PipelineTest, RefusalsNameWhatTheInputIs) {
  std::vector<PlannedInput> plan =
      PlanInputs({Path("empty.json"), Path("prose.txt"), Path("missing.json")}, {});
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].error, Path("empty.json") + ": byte 0: empty file (expected Kineto JSON)");
  EXPECT_EQ(plan[1].error, Path("prose.txt") + ": byte 0: not a trace (expected Kineto JSON)");
  EXPECT_EQ(plan[2].error, Path("missing.json") + ": no such file or directory");
}

// A pickle is read as an allocator snapshot; one that is not (an empty dict here) fails when
// imported, naming what it holds.
TEST_F(PipelineTest, APickleThatIsNoSnapshotFailsNamingWhatItHolds) {
  Report report = RunPipeline({Path("snapshot.pickle")}, {});
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].message,
            Path("snapshot.pickle") +
                ": a pickle of a dict, not a torch.cuda.memory._dump_snapshot() (no 'segments' or "
                "'device_traces')");
}

TEST_F(PipelineTest, CommandsThatReadTracesOnlyNameTheLogTheyWereGiven) {
  const InputPolicy traces_only{
      .traces = true, .rank_summaries = false, .metric_logs = false, .node_logs = false};
  std::vector<PlannedInput> plan = PlanInputs({Path("dmon.txt"), Path("dmesg.txt")}, traces_only);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].role, InputRole::kFailed);
  EXPECT_NE(plan[0].error.find("a metric log (nvidia-smi dmon): not a trace"), std::string::npos)
      << plan[0].error;
  EXPECT_NE(plan[1].error.find("a node log (kernel log): not a trace"), std::string::npos)
      << plan[1].error;
}

TEST_F(PipelineTest, NodeLogsOnlySkipTracesWithANote) {
  const InputPolicy doctor{
      .traces = false, .rank_summaries = false, .metric_logs = true, .node_logs = true};
  std::vector<PlannedInput> plan =
      PlanInputs({Path("input.json"), Path("prose.txt"), dir_.string()}, doctor);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].role, InputRole::kSkipped);
  EXPECT_EQ(plan[0].error, Path("input.json") + ": a Kineto trace, not a node log: skipped");
  EXPECT_EQ(plan[1].error, Path("prose.txt") + ": not a recognised log or command output, skipped");
  EXPECT_EQ(plan[2].role, InputRole::kBundle);  // every folder is a bundle for doctor
}

// The --help of a command names exactly the kinds its policy gives a role: every format
// analyze reads (the metric and node log formats from their own tables), and for doctor the
// logs but no trace.
TEST_F(PipelineTest, AcceptedInputsHelpNamesWhatThePolicyReads) {
  const std::string all = AcceptedInputsHelp({});
  for (const char* kind :
       {"Kineto", "Nsight Systems SQLite", "nvidia-smi dmon", "dcgm", "gpuwhy recording",
        "kernel log", "lspci", "NCCL log", "ibstat", "rank summaries", "_dump_snapshot",
        "memory_summary()", "nsys stats", "DLProf", "Nsight Compute", "support bundle"}) {
    EXPECT_NE(all.find(kind), std::string::npos) << kind << " missing from: " << all;
  }
  // Named in messages but not read: never offered in the help.
  EXPECT_EQ(all.find(".nsys-rep"), std::string::npos) << all;
  EXPECT_EQ(all.find("JSON reports"), std::string::npos) << all;
  const std::string doctor = AcceptedInputsHelp(
      {.traces = false, .rank_summaries = false, .metric_logs = true, .node_logs = true});
  EXPECT_NE(doctor.find("kernel log"), std::string::npos) << doctor;
  EXPECT_NE(doctor.find("nvidia-smi dmon"), std::string::npos) << doctor;
  EXPECT_EQ(doctor.find("Kineto"), std::string::npos) << doctor;
  EXPECT_NE(doctor.find("a folder is a support bundle"), std::string::npos) << doctor;
}

TEST_F(PipelineTest, ReportOrdersTracesThenMetricLogsAndMergesNodeLogs) {
  PipelineOptions options;
  options.jobs = 2;
  Report report = RunPipeline(
      {Path("dmon.txt"), Path("input.json"), Path("dmesg.txt"), Path("prose.txt")}, options);
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(report.ranks[0].header.path, Path("input.json"));
  EXPECT_TRUE(HasTraceAnalysis(report.ranks[0]));
  EXPECT_EQ(report.ranks[1].header.path, Path("dmon.txt"));
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].path, Path("prose.txt"));
  EXPECT_EQ(report.summaries.size(), 1u);
  EXPECT_EQ(report.trace_count, 2u);  // the refused prose counts where a trace would
  // The kernel log's Xid reaches both ranks' diagnosis.
  for (const RankReport& rank : report.ranks) {
    bool xid = false;
    for (const Finding& f : rank.diagnosis.findings) xid = xid || f.id.starts_with("platform.xid");
    EXPECT_TRUE(xid) << rank.header.path;
  }
}

// A training log that is an NCCL log and ends in a CUDA OOM is read as both: the node facts
// and the memory text (doctor, which reads no memory text, takes the node log only).
TEST_F(PipelineTest, AnNcclLogEndingInAnOomIsReadAsBoth) {
  std::vector<PlannedInput> plan = PlanInputs({Path("nccl_oom.log")}, {});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].role, InputRole::kNodeLog);
  EXPECT_EQ(plan[1].role, InputRole::kMemorySnapshot);
  Report report = RunPipeline({Path("nccl_oom.log")}, {});
  bool oom = false;
  for (const RankReport& rank : report.ranks) {
    for (const Finding& f : rank.diagnosis.findings) oom = oom || f.id == "memory.oom_retries";
  }
  EXPECT_TRUE(oom);
  const InputPolicy doctor{
      .traces = false, .rank_summaries = false, .metric_logs = true, .node_logs = true};
  EXPECT_EQ(PlanInputs({Path("nccl_oom.log")}, doctor).size(), 1u);
}

// An Nsight Compute export alone has no trace to join: it gets a report saying so, with what
// the export decides alone (issue 36: its kernels by time with their bound); beside a trace it
// adds no report of its own.
TEST_F(PipelineTest, ANcuExportAloneSaysWhatItNeeds) {
  const std::string ncu = (fs::path(GPUWHY_TEST_DATA) / "ncu" / "modern_details.ncu.csv").string();
  ASSERT_TRUE(fs::exists(ncu)) << ncu;
  Report alone = RunPipeline({ncu}, PipelineOptions{});
  ASSERT_EQ(alone.ranks.size(), 1u);
  EXPECT_TRUE(alone.failures.empty());
  ASSERT_GE(alone.ranks[0].diagnosis.notes.size(), 2u);
  EXPECT_NE(alone.ranks[0].diagnosis.notes[1].find("Nsight Compute export alone"),
            std::string::npos)
      << alone.ranks[0].diagnosis.notes[1];
  EXPECT_NE(alone.ranks[0].diagnosis.notes[0].find("no trace to join"), std::string::npos)
      << alone.ranks[0].diagnosis.notes[0];
  Report beside = RunPipeline({Path("input.json"), ncu}, PipelineOptions{});
  ASSERT_EQ(beside.ranks.size(), 1u);
  EXPECT_EQ(beside.ranks[0].header.path, Path("input.json"));
}

TEST_F(PipelineTest, TheCatalogPassedInIsTheOneThatJudges) {
  const auto has_dataloader = [](const Report& report) {
    for (const Finding& f : report.ranks.at(0).diagnosis.findings) {
      if (f.id == "input.dataloader_wait") return true;
    }
    return false;
  };
  PipelineOptions options;
  EXPECT_TRUE(has_dataloader(RunPipeline({Path("input.json")}, options)));
  ASSERT_TRUE(
      options.diagnose.catalog.ApplyOverride("input.dataloader_wait.min_step_pct=100").ok());
  ASSERT_TRUE(options.diagnose.catalog.ApplyOverride("input.dataloader_wait.high_pct=100").ok());
  EXPECT_FALSE(has_dataloader(RunPipeline({Path("input.json")}, options)));
}

TEST_F(PipelineTest, OnTraceSeesEveryTraceWhileItIsAlive) {
  PipelineOptions options;
  options.max_reports = 0;
  size_t seen = 0;
  std::mutex mutex;
  options.on_trace = [&](const std::string& path, const Trace& trace, const TraceAnalysis&,
                         const Diagnosis&) {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(path, Path("input.json"));
    EXPECT_GT(trace.gpu_ops.size(), 0u);
    ++seen;
  };
  Report report = RunPipeline({Path("input.json"), Path("input.json")}, options);
  EXPECT_EQ(seen, 2u);
  EXPECT_EQ(report.summaries.size(), 2u);
}

// issue 21: the 17-byte trace aborted the whole run; now it fails alone, named, and the good
// trace beside it in the folder is analysed.
TEST_F(PipelineTest, ABrokenTraceFailsAloneBesideAGoodOne) {
  fs::create_directories(dir_ / "job");
  fs::copy_file(Path("input.json"), Path("job/rank0.json"), fs::copy_options::overwrite_existing);
  Write("job/rank1.json", R"({"traceEvents":[})");
  PipelineOptions options;
  options.jobs = 2;
  Report report = RunPipeline({Path("job")}, options);
  ASSERT_EQ(report.ranks.size(), 1u);
  EXPECT_EQ(report.ranks[0].header.path, Path("job/rank0.json"));
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].path, Path("job/rank1.json"));
  EXPECT_EQ(report.failures[0].message,
            Path("job/rank1.json") + ": byte 16: unexpected '}' in the traceEvents array");
}

// The safety net: whatever an input throws on a pool thread (here the on_trace callback, run
// while its trace is analysed) is that input's failure; the other inputs are analysed as usual.
TEST_F(PipelineTest, AnExceptionFailsOnlyTheInputThatThrewIt) {
  fs::copy_file(Path("input.json"), Path("other.json"), fs::copy_options::overwrite_existing);
  PipelineOptions options;
  options.jobs = 2;
  options.on_trace = [&](const std::string& path, const Trace&, const TraceAnalysis&,
                         const Diagnosis&) {
    if (path == Path("other.json")) throw std::out_of_range("basic_string_view::substr");
  };
  Report report = RunPipeline({Path("input.json"), Path("other.json"), Path("dmon.txt")}, options);
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(report.ranks[0].header.path, Path("input.json"));
  EXPECT_EQ(report.ranks[1].header.path, Path("dmon.txt"));
  EXPECT_EQ(report.summaries.size(), 1u);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].message,
            Path("other.json") + ": internal error reading the file: basic_string_view::substr");
}

// A lone trace is imported, analysed and reported on the caller's thread: its freed memory
// is then reused by the rendering that follows (one malloc arena), and an exception in it
// is still that input's failure.
TEST_F(PipelineTest, ALoneTraceRunsOnTheCallingThread) {
  PipelineOptions options;
  options.jobs = 2;
  std::thread::id ran_on;
  options.on_trace = [&](const std::string&, const Trace&, const TraceAnalysis&, const Diagnosis&) {
    ran_on = std::this_thread::get_id();
  };
  Report report = RunPipeline({Path("input.json")}, options);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  ASSERT_EQ(report.ranks.size(), 1u);

  options.on_trace = [&](const std::string&, const Trace&, const TraceAnalysis&, const Diagnosis&) {
    throw std::out_of_range("basic_string_view::substr");
  };
  Report failed = RunPipeline({Path("input.json")}, options);
  EXPECT_TRUE(failed.ranks.empty());
  ASSERT_EQ(failed.failures.size(), 1u);
  EXPECT_EQ(failed.failures[0].message,
            Path("input.json") + ": internal error reading the file: basic_string_view::substr");

  // Two traces still run on the pool's threads.
  std::mutex mutex;
  std::vector<std::thread::id> threads;
  options.on_trace = [&](const std::string&, const Trace&, const TraceAnalysis&, const Diagnosis&) {
    std::lock_guard<std::mutex> lock(mutex);
    threads.push_back(std::this_thread::get_id());
  };
  RunPipeline({Path("input.json"), Path("input.json")}, options);
  ASSERT_EQ(threads.size(), 2u);
  for (std::thread::id id : threads) EXPECT_NE(id, std::this_thread::get_id());
}

}  // namespace pipeline_test
}  // namespace gpuwhy
