// `gpuwhy diff BASE TEST`: compares two runs, each a trace or a `gpuwhy analyze --format json`
// report; exits 1 when --max-regression fires (step time up by more than PCT and by more
// than the step-to-step noise).
#include <CLI/CLI.hpp>

#include <cmath>
#include <ostream>

#include "analyze/analysis.h"
#include "base/file_input.h"
#include "cli/commands.h"
#include "diagnose/diagnose.h"
#include "diff/diff.h"
#include "diff/diff_render.h"
#include "ingest/importer.h"
#include "ingest/report_json/report_reader.h"
#include "report/report.h"

namespace gpuwhy {
namespace {

// A JSON report by its first bytes, else a trace (any format the importer knows).
StatusOr<RunSummary> LoadRun(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path));
  // Read() may return less than asked: fill the head or reach the end.
  std::string head(4096, '\0');
  size_t filled = 0;
  while (filled < head.size()) {
    StatusOr<size_t> got = source->Read(head.data() + filled, head.size() - filled);
    if (!got.ok() || *got == 0) break;
    filled += *got;
  }
  head.resize(filled);
  if (LooksLikeGpuwhyReport(head)) return ReadReportSummary(path);
  ASSIGN_OR_RETURN(Trace trace, ImportTraceFile(path));
  RankReport rank{SummarizeTraceHeader(trace), AnalyzeTrace(trace), {}};
  rank.diagnosis = Diagnose(trace, rank.analysis);
  return SummarizeRun(rank);
}

}  // namespace

void AddDiffCommand(CLI::App& app, DiffCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "diff", "Compare two runs (traces or --format json reports): step time, breakdown, utilization, idle "
              "causes, findings and kernels; a verdict line and a regression gate for CI");
  command->add_option("base", options.base, "The reference run: trace or gpuwhy JSON report")->required();
  command->add_option("test", options.test, "The run to judge: trace or gpuwhy JSON report")->required();
  command->add_option("--format", options.format, "Output format: text, json, md or html")
      ->check(CLI::IsMember({"text", "json", "md", "html"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  command->add_option("--max-regression", options.max_regression_pct,
                      "Exit 1 when the median step time grows by more than PCT % and by more than the "
                      "step-to-step noise")
      ->check(CLI::Range(0.0, 1e9));
}

int RunDiffCommand(const DiffCommandOptions& options, const CliContext& context) {
  StatusOr<RunSummary> base = LoadRun(options.base);
  StatusOr<RunSummary> test = LoadRun(options.test);
  bool failed = false;
  for (const StatusOr<RunSummary>* run : {&base, &test}) {
    if (!run->ok()) {
      PrintError(context, run->status());
      failed = true;
    }
  }
  if (failed) return kExitUnusable;
  DiffOptions diff_options;
  diff_options.max_regression_pct = options.max_regression_pct;
  RunDiff diff = DiffRuns(*base, *test, diff_options);
  std::string rendered = options.format == "json"   ? RenderDiffJson(diff)
                         : options.format == "md"   ? RenderDiffMarkdown(diff)
                         : options.format == "html" ? RenderDiffHtml(diff)
                                                    : RenderDiffText(diff);
  if (!options.output.empty()) {
    if (Status status = WriteWholeFile(options.output, rendered); !status.ok()) {
      PrintError(context, status);
      return kExitUnusable;
    }
  } else {
    context.out << rendered << std::flush;
  }
  return diff.regressed ? kExitFindings : kExitOk;
}

}  // namespace gpuwhy
