// `gpuwhy run [--interval MS] [-o REC] [--trace-dir DIR] [--profile[=STEPS]] -- CMD…`: runs
// the command with its
// output untouched and its exit code passed through, records GPU and host metrics while it
// runs (the recording is written as it goes: docs/recording-format.md), then prints the
// diagnosis to stderr (so the command's stdout stays the command's). Exit: the command's, or 2
// when the recording asked for could not be kept.
// --set and --config shape the diagnosis; --step-range applies to the traces of --trace-dir.
// --profile injects the Python start-up hook of cli/profile_hook.h: one trace per rank, all
// analysed with the recording. The command's whole process tree is owned by a guardian
// (collect/process_runner.h); --kill-after is its SIGTERM-to-SIGKILL grace. Outputs are
// checked before the command starts (cli/run_outputs.h).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "cli/live_metrics.h"
#include "cli/pipeline_flags.h"
#include "cli/profile_hook.h"
#include "cli/report_output.h"
#include "cli/run_outputs.h"
#include "collect/process_runner.h"
#include "collect/recording_file.h"

namespace gpuwhy {
namespace {

// A run this short (a mistyped command, `true`) is reported in one line, not as a report of
// rules that had nothing to assess.
constexpr DurationNs kMinDiagnosedRun = kNsPerSec;

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) line += (line.empty() ? "" : " ") + arg;
  return line;
}

constexpr const char* kProfileHelp =
    "Profile STEPS optimizer steps (default 3) of a PyTorch job without touching it: gpuwhy "
    "puts a sitecustomize.py first on the job's PYTHONPATH (it imports the job's own "
    "sitecustomize after it, and does nothing unless torch is imported). Once torch is "
    "imported it counts optimizer steps (step hooks, or a wrapper of each optimizer's step "
    "on PyTorch without them), skips 5, warms up 2, records STEPS with shapes and memory, "
    "writes one trace per rank (RANK, torchrun) and detaches; the traces are analysed with "
    "the recording. Opt out: leave --profile off (nothing is injected without it)";

}  // namespace

void AddRunCommand(CLI::App& app, RunOptions& options) {
  CLI::App* command = app.add_subcommand(
      "run",
      "Run a command, record GPU and host metrics while it runs, then diagnose them "
      "(the command's exit code is passed through)");
  command->add_option("command", options.command, "The command, after --")->required();
  command->add_option("--interval", options.interval_ms, "Sampling interval in ms (10-1000)")
      ->check(CLI::Range(10, 1000));
  command->add_option("-o,--output", options.recording, "Save the recording to FILE");
  command->add_option("--trace-dir", options.trace_dir,
                      "Folder the job writes Kineto traces to: the newest one is analysed too");
  command->add_option("--format", options.format, "Report format: text, json or md")
      ->check(CLI::IsMember({"text", "json", "md"}));
  command->add_option("--report", options.report, "Write the report to FILE instead of stderr");
  // --profile, --profile=5 and --profile 5 (an optional value: "--" or the next option ends it).
  command->add_option("--profile", options.profile_steps, kProfileHelp)
      ->expected(0, 1)
      ->default_str(std::to_string(kProfileDefaultSteps))
      ->check(CLI::Range(1, 1000));
  command->add_option("--profile-dir", options.profile_dir,
                      "With --profile: write the traces to DIR and keep them (default: the "
                      "run's temporary folder, removed afterwards)");
  command
      ->add_option("--kill-after", options.kill_after_s,
                   "Seconds between the SIGTERM that ends the job's process tree (gpuwhy "
                   "interrupted or killed, even by SIGKILL; what the job left running when it "
                   "exits) and the SIGKILL for what ignored it")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  AddPipelineFlags(*command, options.pipeline);
}

int RunRunCommand(const RunOptions& options, const CliContext& context) {
  // Checked before the command starts: a bad --set or --config must not cost a training run.
  PipelineOptions pipeline;
  if (Status status = ApplyPipelineFlags(options.pipeline, pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  if (Status status = CheckRunOutputs(options); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  // Opened before the command starts: an -o that cannot be written must not cost a run.
  std::unique_ptr<RecordingFile> recording;
  if (!options.recording.empty()) {
    StatusOr<std::unique_ptr<RecordingFile>> file = RecordingFile::Create(options.recording);
    if (!file.ok()) {
      PrintError(context, file.status());
      return kExitUnusable;
    }
    recording = std::move(*file);
  }
  ProfileRunFolder folder;
  std::vector<std::string> environment;
  std::string profile_dir;
  if (options.profile_steps > 0) {
    Status created = folder.Create();
    profile_dir = options.profile_dir.empty() ? folder.path() + "/traces" : options.profile_dir;
    StatusOr<std::vector<std::string>> env =
        created.ok() ? InstallProfileHook(folder, profile_dir, options.profile_steps)
                     : StatusOr<std::vector<std::string>>(created);
    if (!env.ok()) {
      if (recording) recording->Discard();
      PrintError(context, env.status());
      return kExitUnusable;
    }
    environment = std::move(*env);
  } else if (!options.profile_dir.empty()) {
    PrintError(context, "--profile-dir needs --profile (see gpuwhy run --help)");
    if (recording) recording->Discard();
    return kExitUnusable;
  }
  const TimeNs started = WallClockNs();
  ProcessRunner runner(static_cast<int64_t>(options.kill_after_s * 1000));
  if (Status status = runner.Start(options.command, environment); !status.ok()) {
    if (recording) recording->Discard();
    PrintError(context, status);
    return 127;  // what a shell returns for a command it cannot run
  }
  LiveOptions live;
  live.interval_ms = options.interval_ms;
  live.target = runner.pid();
  std::unique_ptr<SamplerThread> sampler = StartLiveSampling(live);
  MetricSeriesSet set;
  set.source = "gpuwhy run";
  set.path = "gpuwhy run -- " + CommandLine(options.command);  // the report's title
  // Drain often enough that rings never overflow (4096 samples = 41 s at 100 Hz); the
  // recording appends once per flush interval. A write that fails does not stop the job: the
  // failure sticks and is reported at the end. The jobs of GPU processes are read once a
  // second, while they still run (docs/job-identity.md).
  JobIdentityCache jobs(live.proc_root);
  jobs.Get(runner.pid());  // read now: it is gone by the time the report is written
  for (int64_t polls = 0; !runner.Poll(); ++polls) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sampler->DrainInto(set);
    if (recording) (void)recording->Append(set);
    if (polls % 20 == 0) ReadProcessJobs(set, jobs, GoneProcesses::kKeep);
  }
  sampler->Stop();
  sampler->DrainInto(set);
  const Status kept = recording ? recording->Finish(set) : Status::Ok();
  const DurationNs ran = WallClockNs() - started;
  std::vector<std::string> profiled;
  std::string profile_outcome;  // why no trace came (or why some process wrote none)
  if (!profile_dir.empty()) {
    profiled = TracesWrittenSince(profile_dir, started);
    profile_outcome =
        ExplainProfileOutcome(folder.status_dir(), options.profile_steps, profiled.size());
  }
  bool reported = true;
  if (options.format == "text" && ran < kMinDiagnosedRun && options.trace_dir.empty() &&
      profiled.empty()) {
    reported = WriteOutput(
        fmt::format(
            "gpuwhy run: '{}' exited {} after {:.1f} s, too short to diagnose "
            "({})\n{}",
            CommandLine(options.command), runner.exit_code(), NsToSec(ran), DescribeRecording(set),
            profile_outcome.empty() ? "" : "gpuwhy run: --profile: " + profile_outcome + "\n"),
        options.report, context.err, context);
  } else {
    Report report = ReportLiveRun(set, options.trace_dir, started, pipeline, context, profiled);
    if (!report.ranks.empty()) {
      for (const std::string& line : DescribeProcessJobs(set, jobs, runner.pid())) {
        report.ranks.front().diagnosis.notes.push_back("job of " + line);
      }
    }
    if (!profile_dir.empty() && !report.ranks.empty()) {
      std::vector<std::string>& notes = report.ranks.front().diagnosis.notes;
      if (!profiled.empty()) {
        notes.push_back(
            fmt::format("--profile: {} trace(s) in {}{}", profiled.size(), profile_dir,
                        options.profile_dir.empty() ? " (removed; --profile-dir keeps them)" : ""));
      }
      if (!profile_outcome.empty()) notes.push_back("--profile: " + profile_outcome);
    }
    std::string rendered =
        RenderReport(report, ParseReportFormat(options.format), TextReportOptions{});
    reported = WriteOutput(rendered, options.report, context.err, context);
  }
  if (!kept.ok()) {
    // The job's status still reaches whoever reads the message; the exit code says the
    // recording, which was asked for, is not where it should be.
    PrintError(context, fmt::format("{}{}; the command exited {}", kept.message(),
                                    recording->Leftover(), runner.exit_code()));
    return kExitUnusable;
  }
  if (!reported) {
    // --report was checked before the job started; the disk can still fill up since.
    PrintError(context, fmt::format("the report asked for was not written; the command exited {}",
                                    runner.exit_code()));
    return kExitUnusable;
  }
  return runner.exit_code();
}

}  // namespace gpuwhy
