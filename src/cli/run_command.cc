// `gpuwhy run [--interval MS] [-o REC] [--trace-dir DIR] -- CMD…`: runs the command with its
// output untouched and its exit code passed through, records GPU and host metrics while it
// runs (the recording is written as it goes: docs/recording-format.md), then prints the
// diagnosis to stderr (so the command's stdout stays the command's). Exit: the command's, or 2
// when the recording asked for could not be kept.
// --set and --config shape the diagnosis; --step-range applies to the traces of --trace-dir.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <thread>

#include "cli/commands.h"
#include "cli/live_metrics.h"
#include "cli/pipeline_flags.h"
#include "cli/report_output.h"
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
  AddPipelineFlags(*command, options.pipeline);
}

int RunRunCommand(const RunOptions& options, const CliContext& context) {
  // Checked before the command starts: a bad --set or --config must not cost a training run.
  PipelineOptions pipeline;
  if (Status status = ApplyPipelineFlags(options.pipeline, pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  for (const std::string& output : {options.recording, options.report}) {
    if (Status status =
            CheckOutputIsNotAnInput(output, {options.trace_dir, options.pipeline.config});
        !status.ok()) {
      PrintError(context, status);
      return kExitUnusable;
    }
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
  const TimeNs started = WallClockNs();
  ProcessRunner runner;
  if (Status status = runner.Start(options.command); !status.ok()) {
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
  // failure sticks and is reported at the end.
  while (!runner.Poll()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sampler->DrainInto(set);
    if (recording) (void)recording->Append(set);
  }
  sampler->Stop();
  sampler->DrainInto(set);
  const Status kept = recording ? recording->Finish(set) : Status::Ok();
  const DurationNs ran = WallClockNs() - started;
  if (options.format == "text" && ran < kMinDiagnosedRun && options.trace_dir.empty()) {
    WriteOutput(fmt::format("gpuwhy run: '{}' exited {} after {:.1f} s, too short to diagnose "
                            "({})\n",
                            CommandLine(options.command), runner.exit_code(), NsToSec(ran),
                            DescribeRecording(set)),
                options.report, context.err, context);
  } else {
    Report report = ReportLiveRun(set, options.trace_dir, started, pipeline, context);
    std::string rendered =
        RenderReport(report, ParseReportFormat(options.format), TextReportOptions{});
    WriteOutput(rendered, options.report, context.err, context);
  }
  if (!kept.ok()) {
    // The job's status still reaches whoever reads the message; the exit code says the
    // recording, which was asked for, is not where it should be.
    PrintError(context, fmt::format("{}{}; the command exited {}", kept.message(),
                                    recording->Leftover(), runner.exit_code()));
    return kExitUnusable;
  }
  return runner.exit_code();
}

}  // namespace gpuwhy
