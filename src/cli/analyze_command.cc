// `gpuwhy analyze TRACE…|DIR`: runs every analysis on each trace and renders the report.
#include <CLI/CLI.hpp>

#include <ostream>

#include "analyze/analysis.h"
#include "base/file_input.h"
#include "cli/commands.h"
#include "ingest/importer.h"
#include "report/report.h"

namespace gpuwhy {
namespace {

// Keeps what the renderers read and frees the rest, so many large traces fit in memory.
void DropRenderUnused(TraceAnalysis& analysis) {
  analysis.timelines = DeviceTimelines{};
  analysis.launch.launches = {};
  for (StreamQueue& queue : analysis.launch.queues) queue.series = {};
  analysis.sync_copies.blocking = {};
  analysis.communication.collectives = {};
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, AnalyzeOptions& options) {
  CLI::App* command = app.add_subcommand(
      "analyze",
      "Analyse traces: utilization, time breakdowns, idle-gap causes, kernels, launches, sync, "
      "communication, memory");
  command->add_option("inputs", options.inputs, "Trace files (.json, .json.gz) or directories")
      ->required();
  command->add_option("--format", options.format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  command->add_option("--top", options.top_n, "Rows in top-N lists (kernels, gaps, streams)")
      ->check(CLI::Range(1, 100000));
}

int RunAnalyzeCommand(const AnalyzeOptions& options, const CliContext& context) {
  std::vector<RankReport> ranks;
  std::vector<ReportFailure> failures;
  const auto fail = [&](const std::string& path, const std::string& message) {
    PrintError(context, message);
    failures.push_back({path, message});
  };
  AnalysisOptions analysis_options;
  analysis_options.top_n = static_cast<size_t>(options.top_n);
  // One input at a time, so one bad path does not hide the others.
  for (const std::string& input : options.inputs) {
    StatusOr<std::vector<std::string>> files = ExpandInputPaths({input});
    if (!files.ok()) {
      fail(input, files.status().message());
      continue;
    }
    if (files->empty()) fail(input, input + ": no trace files found");
    for (const std::string& file : *files) {
      StatusOr<Trace> trace = ImportTraceFile(file);
      if (!trace.ok()) {
        fail(file, trace.status().message());
        continue;
      }
      RankReport rank{SummarizeTraceHeader(*trace), AnalyzeTrace(*trace, analysis_options)};
      DropRenderUnused(rank.analysis);
      ranks.push_back(std::move(rank));
    }
  }
  const bool to_file = !options.output.empty();
  std::string rendered;
  if (options.format == "json") {
    rendered = RenderReportJson(ranks, failures, analysis_options.top_n);
  } else {
    TextReportOptions text;
    text.top_n = analysis_options.top_n;
    text.colour =
        !to_file && context.colour == ColourMode::kOn ? TextColour::kOn : TextColour::kOff;
    rendered = RenderReportText(ranks, text);
  }
  if (to_file) {
    if (Status status = WriteWholeFile(options.output, rendered); !status.ok()) {
      PrintError(context, status);
      return kExitUnusable;
    }
  } else {
    context.out << rendered << std::flush;
  }
  return failures.empty() ? kExitOk : kExitUnusable;
}

}  // namespace gpuwhy
