// `gpuwhy diff BASE TEST`: compares two runs, each a trace or a `gpuwhy analyze --format json`
// report; exits 1 when --max-regression fires (step time up by more than PCT and by more
// than the step-to-step noise). A trace runs through the same pipeline as `gpuwhy analyze`
// (--set, --config and --step-range apply to it).
#include <CLI/CLI.hpp>

#include <cmath>
#include <utility>

#include "cli/commands.h"
#include "cli/input_policies.h"
#include "cli/pipeline_flags.h"
#include "cli/report_output.h"
#include "diff/diff.h"
#include "diff/diff_render.h"
#include "ingest/input_kind.h"
#include "pipeline/pipeline.h"
#include "report/json_report_reader.h"
#include "report/terminal_style.h"

namespace gpuwhy {
namespace {

// A JSON report is read back; any other input runs through the pipeline and must yield one
// rank with a trace, whose summary (with every kernel name) is compared.
// What the trace lost on the way in (cut short, events skipped) is added to |lost|.
StatusOr<RankSummary> LoadRun(const std::string& path, const PipelineOptions& options,
                              std::vector<ReportFailure>& lost) {
  if (ClassifyInput(path).kind == InputKind::kGpuwhyReport) return ReadReportSummary(path);
  Report report = RunPipeline({path}, options);
  if (!report.failures.empty()) return InvalidArgument("{}", report.failures.front().message);
  lost.insert(lost.end(), report.data_loss.begin(), report.data_loss.end());
  if (report.ranks.size() != 1 || !HasTraceAnalysis(report.ranks.front()) ||
      report.summaries.size() != 1) {
    return InvalidArgument(
        "{}: holds {} traces (one per profiled process); diff compares one trace or "
        "gpuwhy JSON report with another",
        path, report.ranks.size());
  }
  return std::move(report.summaries.front());
}

}  // namespace

void AddDiffCommand(CLI::App& app, DiffCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "diff",
      "Compare two runs (traces or --format json reports): step time, breakdown, utilization, idle "
      "causes, findings and kernels; a verdict line and a regression gate for CI");
  command->add_option("base", options.base, "The reference run: trace or gpuwhy JSON report")
      ->required();
  command->add_option("test", options.test, "The run to judge: trace or gpuwhy JSON report")
      ->required();
  command->add_option("--format", options.format, "Output format: text, json, md or html")
      ->check(CLI::IsMember({"text", "json", "md", "html"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  command
      ->add_option("--max-regression", options.max_regression_pct,
                   "Exit 1 when the median step time grows by more than PCT % and by more than the "
                   "step-to-step noise")
      ->check(CLI::Range(0.0, 1e9));
  AddPipelineFlags(*command, options.pipeline);
  AddStrictFlag(*command, options.pipeline.strict);
}

int RunDiffCommand(const DiffCommandOptions& options, const CliContext& context) {
  PipelineOptions pipeline;
  if (Status status = ApplyPipelineFlags(options.pipeline, pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  if (Status status = CheckOutputIsNotAnInput(
          options.output, {options.base, options.test, options.pipeline.config});
      !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  pipeline.accept = kTraceInputs;
  pipeline.cross_rank = false;
  pipeline.summary_kernel_stats = SummaryKernelStats::kEveryName;
  std::vector<ReportFailure> lost;
  StatusOr<RankSummary> base = LoadRun(options.base, pipeline, lost);
  StatusOr<RankSummary> test = LoadRun(options.test, pipeline, lost);
  bool failed = false;
  for (const StatusOr<RankSummary>* run : {&base, &test}) {
    if (!run->ok()) {
      PrintError(context, run->status());
      failed = true;
    }
  }
  failed |= PrintDataLoss(lost, options.pipeline.strict, context) && options.pipeline.strict;
  if (failed) return kExitUnusable;
  DiffOptions diff_options;
  diff_options.max_regression_pct = options.max_regression_pct;
  RunDiff diff = DiffRuns(*base, *test, diff_options);
  std::string rendered = options.format == "json" ? RenderDiffJson(diff)
                         : options.format == "md" ? RenderDiffMarkdown(diff)
                         : options.format == "html"
                             ? RenderDiffHtml(diff)
                             : TerminalText(RenderDiffText(diff), ColourMode::kOff);
  if (!WriteOutput(rendered, options.output, context.out, context)) return kExitUnusable;
  return diff.regressed ? kExitFindings : kExitOk;
}

}  // namespace gpuwhy
