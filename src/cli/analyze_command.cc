// `gpuwhy analyze TRACE…|DIR`: runs the pipeline (pipeline/pipeline.h) on every input and
// renders the verdict first (ranked findings, checklist), then the tables that support it.
// Traces, Nsight Systems exports, metric logs, node logs, support bundles and rank summaries
// are all inputs; several ranks of one job add the cross-rank view (docs/cross-rank.md).
#include <CLI/CLI.hpp>

#include <ostream>

#include "cli/commands.h"
#include "cli/input_policies.h"
#include "cli/pipeline_flags.h"
#include "cli/report_output.h"
#include "pipeline/pipeline.h"
#include "ranks/summary_json.h"

namespace gpuwhy {
namespace {

// Full per-rank reports are kept for up to this many traces (--summary keeps none).
constexpr size_t kMaxRankReports = 16;

void AddRankOptions(CLI::App& command, AnalyzeOptions& options) {
  command.add_flag("--summary", options.summary,
                   "Reduce one rank's trace to its summary JSON (-o FILE) for merging elsewhere: "
                   "gpuwhy analyze *.summary.json");
  command.add_option("--baseline-single", options.baseline_single,
                     "A one-GPU trace of the same model and per-GPU batch: scaling efficiency");
  command
      .add_option("--jobs", options.jobs,
                  "Traces imported at once (memory grows with it); default: cores")
      ->check(CLI::Range(0, 1024));
  command
      .add_option(
          "--link-peak-gbps", options.link_peak_gbps,
          "Per-GPU bus bandwidth peak of the fabric, GB/s (collectives are compared with it)")
      ->check(CLI::Range(0.0, 1e6));
}

// --summary: the one rank's summary JSON to -o or stdout; exit code.
int WriteRankSummary(const Report& report, const AnalyzeOptions& options,
                     const CliContext& context) {
  if (!report.failures.empty()) return kExitUnusable;
  if (options.pipeline.strict && !report.data_loss.empty()) return kExitUnusable;
  if (report.summaries.size() != 1) {
    PrintError(context,
               fmt::format("--summary reduces one rank: got {} inputs (run it once per rank)",
                           report.summaries.size()));
    return kExitUnusable;
  }
  std::string json = RenderRankSummaryJson(report.summaries.front());
  return WriteOutput(json, options.output, context.out, context) ? kExitOk : kExitUnusable;
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, AnalyzeOptions& options) {
  CLI::App* command = app.add_subcommand(
      "analyze",
      "Diagnose traces: ranked bottlenecks with evidence, recoverable time and fixes, the "
      "checklist, then the analysis tables");
  command->add_option("inputs", options.inputs, AcceptedInputsHelp(kAnalyzeInputs))->required();
  command->add_option("--format", options.format, "Output format: text, json, md or html")
      ->check(CLI::IsMember({"text", "json", "md", "html"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  command->add_option("--top", options.top_n, "Rows in top-N lists (kernels, gaps, streams)")
      ->check(CLI::Range(1, 100000));
  command
      ->add_option("--detail", options.detail,
                   "Markdown of several ranks: compact (a row per rank and the top findings, "
                   "fits a GitHub comment) or full (every rank's report)")
      ->check(CLI::IsMember({"compact", "full"}));
  command->add_flag(
      "--hta-compat", options.hta_compat,
      "Reproduce HolisticTraceAnalysis' numbers in the temporal breakdown, idle split by "
      "stream, kernel-type breakdown and communication overlap: drop the last ProfilerStep, "
      "round times to µs as HTA's loader does, count cuda_sync busy in the temporal breakdown "
      "(the report says so; default: gpuwhy's exact ns view)");
  AddFailOnFlag(*command, options.fail_on);
  AddRuleFlags(*command, options.pipeline);
  AddRankOptions(*command, options);
  AddTraceInputFlags(*command, options.pipeline);
}

int RunAnalyzeCommand(const AnalyzeOptions& options, const CliContext& context) {
  PipelineOptions pipeline;
  if (Status status = ApplyPipelineFlags(options.pipeline, pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  std::vector<std::string> read = options.inputs;
  read.insert(read.end(), {options.pipeline.config, options.baseline_single});
  if (Status status = CheckOutputIsNotAnInput(options.output, read); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  pipeline.analysis.top_n = static_cast<size_t>(options.top_n);
  pipeline.analysis.hta_compat = options.hta_compat;
  pipeline.jobs = static_cast<size_t>(options.jobs);
  pipeline.drop_render_unused = true;
  pipeline.max_reports = options.summary ? 0 : kMaxRankReports;
  pipeline.cross_rank = !options.summary;
  pipeline.cross_rank_options.link_peak_gbps = options.link_peak_gbps;
  pipeline.baseline_single = options.baseline_single;
  Report report = RunPipeline(options.inputs, pipeline);
  PrintFailures(report, context, options.pipeline.strict);
  if (options.summary) return WriteRankSummary(report, options, context);
  return RenderAndExit(report,
                       {options.format, options.output, pipeline.analysis.top_n, options.fail_on,
                        options.detail, options.pipeline.strict},
                       context);
}

}  // namespace gpuwhy
