// The multi-rank half of `gpuwhy analyze`: imports traces in parallel with bounded memory
// (at most `jobs` traces alive), reduces each rank to its RankSummary, reads summary files,
// and runs the cross-rank analysis and diagnosis when there is more than one rank.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "diagnose/cross_rank_rules.h"
#include "ingest/importer.h"
#include "ranks/rank_summary.h"
#include "report/cross_rank_report.h"
#include "report/report.h"

namespace gpuwhy {

struct RankInputs {
  std::vector<RankReport> reports;      // traces analysed here, input order
  std::vector<RankSummary> summaries;   // one per analysed trace and per summary file read
  std::vector<ReportFailure> failures;  // already printed
  size_t trace_count = 0;               // trace files analysed (not summary files)
  bool reports_left_out = false;        // more traces than max_reports
};

struct RankInputOptions {
  AnalysisOptions analysis;
  const DiagnoseOptions* diagnose = nullptr;
  size_t jobs = 0;  // 0: one per core
  // Called on each analysis after the diagnosis and the summary read it.
  void (*drop_unused)(TraceAnalysis&) = nullptr;
  // Full per-rank reports are kept only up to this many traces; above it only summaries
  // stay in memory, so a 64-rank job needs the memory of `jobs` traces, not 64.
  size_t max_reports = 16;
  // ... unless the trace files total at most this (a folder of small traces keeps them all).
  uintmax_t max_report_input_bytes = uintmax_t{1} << 30;
  // Called on each analysed trace (from a worker thread: it must be thread-safe) while its
  // trace and analyses are alive, before they are reduced to the summary.
  std::function<void(const std::string& path, const Trace&, const TraceAnalysis&, const Diagnosis&)> on_trace;
  ImportOptions import;  // --step-range
};

// Expands the inputs; trace files are analysed on a thread pool, summary files
// (`gpuwhy analyze --summary`) are read. Errors are printed in input order.
RankInputs AnalyzeRankInputs(const std::vector<std::string>& inputs, const RankInputOptions& options,
                             const CliContext& context);

// The single-rank diagnosis reduced to the summary's finding list.
std::vector<SummaryFinding> SummarizeFindings(const Diagnosis& diagnosis);

// Cross-rank analysis + diagnosis when at least two inputs are ranks of a distributed job
// (world size > 1 or communication kernels), or a baseline was given; nullopt otherwise.
std::optional<CrossRankReport> BuildCrossRankReport(const RankInputs& inputs, const CrossRankOptions& options,
                                                    const DiagnoseOptions& diagnose,
                                                    const std::optional<RankSummary>& baseline);

// --summary, --baseline-single, --jobs, --link-peak-gbps.
void AddAnalyzeRankOptions(CLI::App& command, AnalyzeOptions& options);
// RankInputOptions::max_reports for these options (0 with --summary).
size_t KeepRankReports(const AnalyzeOptions& options);
// --summary: the one rank's summary JSON to -o or stdout; exit code.
int WriteRankSummary(const RankInputs& inputs, const AnalyzeOptions& options, const CliContext& context);
// The cross-rank report for these inputs (imports --baseline-single; a failure is printed
// and appended to `failures`).
std::optional<CrossRankReport> RunCrossRank(const RankInputs& inputs, const AnalyzeOptions& options,
                                            const RankInputOptions& input_options, const CliContext& context,
                                            std::vector<ReportFailure>& failures);

}  // namespace gpuwhy
