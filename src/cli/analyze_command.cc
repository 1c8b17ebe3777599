// `gpuwhy analyze TRACE…|DIR`: runs every analysis and the diagnosis on each trace and renders
// the verdict first (ranked findings, checklist), then the tables that support it.
#include <CLI/CLI.hpp>

#include <ostream>
#include <span>

#include "analyze/analysis.h"
#include "base/file_input.h"
#include "cli/analyze_bundles.h"
#include "cli/analyze_ranks.h"
#include "cli/commands.h"
#include "cli/diagnosis_flags.h"
#include "cli/step_range_flag.h"
#include "cli/metrics_input.h"
#include "diagnose/diagnose.h"
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
  for (DeviceIdleGaps& device : analysis.idle_gaps.devices) device.by_cause = {};  // in series
}

constexpr std::string_view kSeverities[] = {"info", "low", "medium", "high", "critical"};

Severity ParseSeverity(std::string_view name) {
  for (size_t i = 0; i < std::size(kSeverities); ++i) {
    if (kSeverities[i] == name) return static_cast<Severity>(i);
  }
  return Severity::kCritical;  // unreachable: CLI11 checks the name
}

// The config file first, then each --set in order: the command line wins.
bool ReachesSeverity(std::span<const RankReport> ranks, const std::optional<CrossRankReport>& job,
                     Severity threshold) {
  for (const RankReport& rank : ranks) {
    for (const Finding& f : rank.diagnosis.findings) {
      if (f.severity >= threshold) return true;
    }
  }
  return job && !job->diagnosis.findings.empty() && job->diagnosis.MaxSeverity() >= threshold;
}

}  // namespace

void AddAnalyzeCommand(CLI::App& app, AnalyzeOptions& options) {
  CLI::App* command = app.add_subcommand(
      "analyze",
      "Diagnose traces: ranked bottlenecks with evidence, recoverable time and fixes, the "
      "checklist, then the analysis tables");
  command->add_option("inputs", options.inputs, "Trace files (.json, .json.gz) or directories")
      ->required();
  command->add_option("--format", options.format, "Output format: text, json, md or html")
      ->check(CLI::IsMember({"text", "json", "md", "html"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  command->add_option("--top", options.top_n, "Rows in top-N lists (kernels, gaps, streams)")
      ->check(CLI::Range(1, 100000));
  AddDiagnosisFlags(*command, options.fail_on, options.overrides, options.config);
  AddAnalyzeRankOptions(*command, options);
  AddStepRangeOption(*command, options.step_range);
}

int RunAnalyzeCommand(const AnalyzeOptions& options, const CliContext& context) {
  DiagnoseOptions diagnose_options;
  if (Status status = ApplyRuleOverrides(options.config, options.overrides, diagnose_options);
      !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  AnalysisOptions analysis_options;
  analysis_options.top_n = static_cast<size_t>(options.top_n);
  // Ranks in parallel, each reduced to its summary; the diagnosis reads the trace and the
  // full analyses before DropRenderUnused.
  RankInputOptions input_options{analysis_options, &diagnose_options, static_cast<size_t>(options.jobs),
                                 &DropRenderUnused, KeepRankReports(options)};
  input_options.import.step_range = options.step_range;
  // Metric logs and recordings are diagnosed from their signals (cli/metrics_input.h).
  // Support bundles (node logs) add gpuwhy doctor's platform findings (cli/analyze_bundles.h).
  BundleInputs bundles = SplitSupportBundles(options.inputs);
  MetricLogInputs logs = SplitMetricLogInputs(bundles.rest, diagnose_options, context);
  RankInputs inputs = logs.traces.empty() ? RankInputs{}
                                          : AnalyzeRankInputs(logs.traces, input_options, context);
  if (options.summary) return WriteRankSummary(inputs, options, context);
  std::vector<RankReport>& ranks = inputs.reports;
  std::vector<ReportFailure>& failures = inputs.failures;
  for (RankReport& report : logs.reports) ranks.push_back(std::move(report));
  for (ReportFailure& failure : logs.failures) failures.push_back(std::move(failure));
  std::optional<CrossRankReport> job = RunCrossRank(inputs, options, input_options, context, failures);
  AddBundleDiagnosis(bundles, diagnose_options, ranks, failures);
  const bool to_file = !options.output.empty();
  TextReportOptions text;
  text.top_n = analysis_options.top_n;
  text.colour = !to_file && context.colour == ColourMode::kOn ? TextColour::kOn : TextColour::kOff;
  std::string rendered;
  if (options.format == "json") {
    rendered = RenderReportJson(ranks, failures, analysis_options.top_n);
    if (job) rendered = AddCrossRankJson(std::move(rendered), *job, analysis_options.top_n);
  } else if (options.format == "html") {
    rendered = RenderReportHtml(ranks, failures, job ? &*job : nullptr);
  } else if (options.format == "md") {
    rendered = RenderReportMarkdown(ranks, failures, text);
    if (job) rendered = RenderCrossRankMarkdown(*job, text) + rendered;
  } else {
    rendered = RenderReportText(ranks, text);
    if (job) rendered = RenderCrossRankText(*job, text) + rendered;
  }
  if (to_file) {
    if (Status status = WriteWholeFile(options.output, rendered); !status.ok()) {
      PrintError(context, status);
      return kExitUnusable;
    }
  } else {
    context.out << rendered << std::flush;
  }
  if (!failures.empty()) return kExitUnusable;
  if (!options.fail_on.empty() && ReachesSeverity(ranks, job, ParseSeverity(options.fail_on))) {
    return kExitFindings;
  }
  return kExitOk;
}

}  // namespace gpuwhy
