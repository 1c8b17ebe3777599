#include "cli/live_metrics.h"

#include <csignal>
#include <filesystem>
#include <map>
#include <set>

#include "cli/input_policies.h"
#include "cli/report_output.h"
#include "collect/nvml_sampler.h"
#include "collect/procfs_sampler.h"
#include "diagnose/merge.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// The newest *.json / *.json.gz under |dir| modified at or after |since_ns|.
std::string NewestTrace(const std::string& dir, TimeNs since_ns) {
  std::error_code ec;
  std::string best;
  fs::file_time_type best_time;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool trace = name.ends_with(".json") || name.ends_with(".json.gz");
    if (!it->is_regular_file(ec) || !trace) continue;
    fs::file_time_type t = it->last_write_time(ec);
    auto since = std::chrono::file_clock::from_sys(
        std::chrono::sys_time<std::chrono::nanoseconds>(std::chrono::nanoseconds(since_ns)));
    if (t < since) continue;
    if (best.empty() || t > best_time) {
      best = it->path().string();
      best_time = t;
    }
  }
  return best;
}

volatile std::sig_atomic_t g_stop_requested = 0;
void RequestStop(int) { g_stop_requested = 1; }

}  // namespace

StopOnInterrupt::StopOnInterrupt() {
  g_stop_requested = 0;
  previous_int_ = std::signal(SIGINT, RequestStop);
  previous_term_ = std::signal(SIGTERM, RequestStop);
}

StopOnInterrupt::~StopOnInterrupt() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

bool StopOnInterrupt::requested() { return g_stop_requested != 0; }

std::unique_ptr<SamplerThread> StartLiveSampling(const LiveOptions& options) {
  std::vector<std::unique_ptr<Sampler>> samplers;
  samplers.push_back(std::make_unique<NvmlSampler>());
  samplers.push_back(std::make_unique<ProcfsSampler>(options.proc_root, options.target));
  auto thread = std::make_unique<SamplerThread>(std::move(samplers),
                                                MsToNs(std::max(options.interval_ms, 10)));
  thread->Start();
  return thread;
}

namespace {

// By pid: the GPUs it held a context on.
std::map<pid_t, std::set<int32_t>> GpuProcesses(const MetricSeriesSet& set) {
  std::map<pid_t, std::set<int32_t>> gpus;
  for (const MetricSeries* s : set.FindAll("gpu.process_seen")) {
    if (pid_t pid = PidOfEntity(s->key.entity); pid > 0) gpus[pid].insert(s->key.device);
  }
  return gpus;
}

}  // namespace

void ReadProcessJobs(const MetricSeriesSet& set, JobIdentityCache& jobs, GoneProcesses gone) {
  std::vector<pid_t> pids;
  for (const auto& [pid, devices] : GpuProcesses(set)) pids.push_back(pid);
  if (gone == GoneProcesses::kForget) {
    jobs.Update(pids);
    return;
  }
  for (pid_t pid : pids) jobs.Get(pid);
}

std::vector<std::string> DescribeProcessJobs(const MetricSeriesSet& set, JobIdentityCache& jobs,
                                             pid_t target) {
  std::map<pid_t, std::set<int32_t>> gpus = GpuProcesses(set);
  if (target > 0) gpus.try_emplace(target);
  std::vector<std::string> lines;
  size_t more = 0;
  for (const auto& [pid, devices] : gpus) {
    const JobIdentity& identity = jobs.Get(pid);
    if (identity.empty()) continue;
    if (lines.size() == kMaxJobLines) {
      ++more;
      continue;
    }
    std::string where;
    for (int32_t device : devices)
      where += (where.empty() ? "GPU " : ", ") + std::to_string(device);
    if (pid == target) where += where.empty() ? "the command" : "; the command";
    lines.push_back(fmt::format("pid {}{}{}: {}", pid,
                                identity.command.empty() ? "" : " " + identity.command,
                                where.empty() ? "" : " (" + where + ")", identity.Describe()));
  }
  if (more > 0) lines.push_back(fmt::format("and {} more processes with a job", more));
  return lines;
}

std::string DescribeRecording(const MetricSeriesSet& set) {
  auto span = set.Span();
  double seconds = span ? NsToSec(span->second - span->first) : 0;
  double hz = set.nominal_interval_ns > 0 ? 1e9 / static_cast<double>(set.nominal_interval_ns) : 0;
  std::string text = fmt::format("{} samples of {} series over {:.1f} s at {:.0f} Hz",
                                 set.sample_count(), set.all().size(), seconds, hz);
  if (set.sampler_cpu_pct >= 0) {
    text += fmt::format("; sampler CPU {:.2f}% of one core (thread CPU time / wall time)",
                        set.sampler_cpu_pct);
  }
  return text;
}

Report ReportLiveRun(const MetricSeriesSet& set, const std::string& trace_dir, TimeNs since_ns,
                     const PipelineOptions& options, const CliContext& context,
                     const std::vector<std::string>& profiled) {
  RankReport series = ReportSeries(set, options.diagnose);
  Diagnosis& signals = series.diagnosis;
  signals.notes.push_back("recorded " + DescribeRecording(set));
  for (const std::string& note : set.notes) signals.notes.push_back("skipped: " + note);
  std::vector<std::string> trace_paths = profiled;
  if (trace_paths.empty() && !trace_dir.empty()) {
    std::string newest = NewestTrace(trace_dir, since_ns);
    if (newest.empty()) {
      signals.notes.push_back("no Kineto trace written to " + trace_dir + " during the run");
    } else {
      trace_paths.push_back(newest);
    }
  }
  Report report;
  if (!trace_paths.empty()) {
    PipelineOptions traces = options;
    traces.accept = kTraceInputs;
    traces.cross_rank = false;
    Report traced = RunPipeline(trace_paths, traces);
    for (const ReportFailure& failure : traced.failures) {
      PrintError(context, failure.message);
      signals.notes.push_back("trace not used: " + failure.message);
    }
    // run exits with the job's status, so a trace's data loss is a warning only (no --strict).
    PrintDataLoss(traced.data_loss, /*strict=*/false, context);
    bool every_rank = profiled.empty() ? traced.ranks.size() == 1 : !traced.ranks.empty();
    if (traced.failures.empty() && every_rank) {
      report.ranks = std::move(traced.ranks);
      // The recording is the node's, not one rank's: its signals join the first rank.
      MergeDiagnosis(report.ranks.front().diagnosis, std::move(signals));
      return report;
    }
  }
  report.ranks.push_back(std::move(series));
  return report;
}

}  // namespace gpuwhy
