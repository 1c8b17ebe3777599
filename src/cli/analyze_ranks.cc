#include "cli/analyze_ranks.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>

#include "base/thread_pool.h"
#include "ingest/importer.h"
#include "base/file_input.h"
#include "ranks/summary_json.h"

namespace gpuwhy {
namespace {

// One input file's outcome; filled by a worker, read after the pool drains.
struct FileSlot {
  std::string path;
  bool is_summary = false;
  // One per trace the file holds (an Nsight Systems export holds one per process).
  std::vector<RankReport> reports;
  std::vector<RankSummary> summaries;
  std::string error;
};

void AnalyzeOneTrace(FileSlot& slot, const RankInputOptions& options, bool keep_report) {
  StatusOr<std::vector<Trace>> traces = ImportTraceFiles(slot.path, options.import);
  if (!traces.ok()) {
    slot.error = traces.status().message();
    return;
  }
  for (Trace& trace : *traces) {
    RankReport rank{SummarizeTraceHeader(trace), AnalyzeTrace(trace, options.analysis), {}};
    rank.diagnosis = Diagnose(trace, rank.analysis, *options.diagnose);
    if (options.on_trace) options.on_trace(slot.path, trace, rank.analysis, rank.diagnosis);
    RankSummary summary = SummarizeRank(trace, rank.analysis);
    summary.findings = SummarizeFindings(rank.diagnosis);
    slot.summaries.push_back(std::move(summary));
    if (!keep_report) continue;  // the trace and its analyses die here
    if (options.drop_unused != nullptr) options.drop_unused(rank.analysis);
    slot.reports.push_back(std::move(rank));
  }
}

void ReadOneSummary(FileSlot& slot) {
  StatusOr<RankSummary> summary = ReadRankSummaryFile(slot.path);
  if (!summary.ok()) {
    slot.error = summary.status().message();
    return;
  }
  slot.summaries.push_back(std::move(*summary));
}

}  // namespace

std::vector<SummaryFinding> SummarizeFindings(const Diagnosis& diagnosis) {
  std::vector<SummaryFinding> out;
  for (const Finding& f : diagnosis.findings) {
    out.push_back({f.id, std::string(SeverityName(f.severity)), f.title, f.recoverable_ns_per_step});
  }
  return out;
}

RankInputs AnalyzeRankInputs(const std::vector<std::string>& inputs, const RankInputOptions& options,
                             const CliContext& context) {
  RankInputs out;
  std::vector<std::unique_ptr<FileSlot>> slots;
  // One input at a time, so one bad path does not hide the others.
  for (const std::string& input : inputs) {
    StatusOr<std::vector<std::string>> files = ExpandInputPaths({input});
    if (!files.ok() || files->empty()) {
      auto slot = std::make_unique<FileSlot>();
      slot->path = input;
      slot->error = files.ok() ? input + ": no trace files found" : files.status().message();
      slots.push_back(std::move(slot));
      continue;
    }
    for (const std::string& file : *files) {
      auto slot = std::make_unique<FileSlot>();
      slot->path = file;
      slot->is_summary = IsRankSummaryFile(file);
      slots.push_back(std::move(slot));
    }
  }
  uintmax_t trace_bytes = 0;
  for (const auto& slot : slots) {
    if (!slot->error.empty() || slot->is_summary) continue;
    out.trace_count++;
    std::error_code ignored;
    uintmax_t size = std::filesystem::file_size(slot->path, ignored);
    if (!ignored) trace_bytes += size;
  }
  const bool keep_reports = out.trace_count <= options.max_reports || trace_bytes <= options.max_report_input_bytes;
  out.reports_left_out = !keep_reports && options.max_reports > 0;
  {
    ThreadPool pool(options.jobs > 0 ? options.jobs : DefaultThreadCount());
    for (auto& slot : slots) {
      if (!slot->error.empty()) continue;
      FileSlot* s = slot.get();
      pool.Submit([s, &options, keep_reports] {
        if (s->is_summary) {
          ReadOneSummary(*s);
        } else {
          AnalyzeOneTrace(*s, options, keep_reports);
        }
      });
    }
    pool.Wait();
  }
  for (auto& slot : slots) {
    if (!slot->error.empty()) {
      PrintError(context, slot->error);
      out.failures.push_back({slot->path, slot->error});
      continue;
    }
    for (RankReport& report : slot->reports) out.reports.push_back(std::move(report));
    for (RankSummary& summary : slot->summaries) out.summaries.push_back(std::move(summary));
  }
  return out;
}

std::optional<CrossRankReport> BuildCrossRankReport(const RankInputs& inputs, const CrossRankOptions& options,
                                                    const DiagnoseOptions& diagnose,
                                                    const std::optional<RankSummary>& baseline) {
  // Traces of one job: at least two that ran collectives or say they are one rank of many.
  size_t distributed = 0;
  for (const RankSummary& s : inputs.summaries) distributed += s.world_size > 1 || !s.collectives.empty();
  if (distributed < 2 && !baseline) return std::nullopt;
  CrossRankReport report;
  report.result = AnalyzeCrossRank(inputs.summaries, options, baseline ? &*baseline : nullptr);
  report.diagnosis = DiagnoseCrossRank(report.result, diagnose);
  return report;
}

void AddAnalyzeRankOptions(CLI::App& command, AnalyzeOptions& options) {
  command.add_flag("--summary", options.summary,
                   "Reduce one rank's trace to its summary JSON (-o FILE) for merging elsewhere: "
                   "gpuwhy analyze *.summary.json");
  command.add_option("--baseline-single", options.baseline_single,
                     "A one-GPU trace of the same model and per-GPU batch: scaling efficiency");
  command.add_option("--jobs", options.jobs, "Traces imported at once (memory grows with it); default: cores")
      ->check(CLI::Range(0, 1024));
  command.add_option("--link-peak-gbps", options.link_peak_gbps,
                     "Per-GPU bus bandwidth peak of the fabric, GB/s (collectives are compared with it)")
      ->check(CLI::Range(0.0, 1e6));
}

size_t KeepRankReports(const AnalyzeOptions& options) { return options.summary ? 0 : 16; }

int WriteRankSummary(const RankInputs& inputs, const AnalyzeOptions& options, const CliContext& context) {
  if (!inputs.failures.empty()) return kExitUnusable;
  if (inputs.summaries.size() != 1) {
    PrintError(context, fmt::format("--summary reduces one rank: got {} inputs (run it once per rank)",
                                    inputs.summaries.size()));
    return kExitUnusable;
  }
  std::string json = RenderRankSummaryJson(inputs.summaries.front());
  if (options.output.empty()) {
    context.out << json << std::flush;
    return kExitOk;
  }
  if (Status status = WriteWholeFile(options.output, json); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  return kExitOk;
}

std::optional<CrossRankReport> RunCrossRank(const RankInputs& inputs, const AnalyzeOptions& options,
                                            const RankInputOptions& input_options, const CliContext& context,
                                            std::vector<ReportFailure>& failures) {
  std::optional<RankSummary> baseline;
  if (!options.baseline_single.empty()) {
    RankInputOptions single = input_options;
    single.max_reports = 0;
    RankInputs base = AnalyzeRankInputs({options.baseline_single}, single, context);
    failures.insert(failures.end(), base.failures.begin(), base.failures.end());
    if (base.summaries.size() == 1) baseline = std::move(base.summaries.front());
  }
  CrossRankOptions cross;
  cross.link_peak_gbps = options.link_peak_gbps;
  std::optional<CrossRankReport> job = BuildCrossRankReport(inputs, cross, *input_options.diagnose, baseline);
  if (job && inputs.reports_left_out) {
    job->diagnosis.notes.push_back(fmt::format(
        "{} traces: per-rank tables are left out to bound memory (they are kept for up to {} traces "
        "or 1 GiB of input); analyse one rank's file for its full report",
        inputs.trace_count, input_options.max_reports));
  }
  return job;
}

}  // namespace gpuwhy
