// `gpuwhy record -o REC`: records GPU and host metrics until Ctrl-C (or --duration), written
// as it goes (docs/recording-format.md), for `gpuwhy analyze REC` later; `gpuwhy export-csv
// REC|LOG` turns a recording or any metric log into one CSV row per sample.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <thread>

#include "base/file_input.h"
#include "base/guarded_read.h"
#include "cli/commands.h"
#include "cli/live_metrics.h"
#include "cli/report_output.h"
#include "collect/recording_file.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {

void AddRecordCommand(CLI::App& app, RecordOptions& options) {
  CLI::App* command = app.add_subcommand(
      "record", "Record GPU and host metrics until Ctrl-C; read them with gpuwhy analyze REC");
  command->add_option("-o,--output", options.output, "The recording file")->required();
  command->add_option("--interval", options.interval_ms, "Sampling interval in ms (10-1000)")
      ->check(CLI::Range(10, 1000));
  command->add_option("--duration", options.duration_s, "Stop after this many seconds");
  command->add_option("--pid", options.pid, "Also record this process tree's CPU per thread");
}

int RunRecordCommand(const RecordOptions& options, const CliContext& context) {
  StatusOr<std::unique_ptr<RecordingFile>> recording = RecordingFile::Create(options.output);
  if (!recording.ok()) {
    PrintError(context, recording.status());
    return kExitUnusable;
  }
  StopOnInterrupt interrupt;
  LiveOptions live;
  live.interval_ms = options.interval_ms;
  live.target = options.pid;
  std::unique_ptr<SamplerThread> sampler = StartLiveSampling(live);
  MetricSeriesSet set;
  set.source = "gpuwhy record";
  const TimeNs start = WallClockNs();
  while (!StopOnInterrupt::requested() &&
         (options.duration_s <= 0 || WallClockNs() - start < options.duration_s * kNsPerSec)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sampler->DrainInto(set);
    (void)(*recording)->Append(set);  // a failure sticks; Finish reports it
  }
  sampler->Stop();
  sampler->DrainInto(set);
  if (Status status = (*recording)->Finish(set); !status.ok()) {
    PrintError(context, fmt::format("{}{}", status.message(), (*recording)->Leftover()));
    return kExitUnusable;
  }
  context.err << "gpuwhy: recorded " << DescribeRecording(set) << " to " << options.output << '\n';
  for (const std::string& note : set.notes) context.err << "gpuwhy: skipped: " << note << '\n';
  return kExitOk;
}

void AddExportCsvCommand(CLI::App& app, ExportCsvOptions& options) {
  CLI::App* command = app.add_subcommand(
      "export-csv",
      "Write a recording or metric log as CSV: time_s,device,entity,metric,unit,value");
  command->add_option("input", options.input, "Recording or metric log")->required();
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
}

int RunExportCsvCommand(const ExportCsvOptions& options, const CliContext& context) {
  if (Status status = CheckOutputIsNotAnInput(options.output, {options.input}); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  StatusOr<MetricSeriesSet> set =
      GuardedRead(options.input, [&] { return ImportMetricLog(options.input); });
  if (!set.ok()) {
    PrintError(context, set.status());
    return kExitUnusable;
  }
  std::string csv = RenderSeriesCsv(*set);
  if (options.output.empty()) {
    context.out << csv << std::flush;
    return kExitOk;
  }
  if (Status status = WriteWholeFile(options.output, csv); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  return kExitOk;
}

}  // namespace gpuwhy
