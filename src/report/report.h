// Renders the analyses of `gpuwhy analyze`: pure functions from the pipeline's Report
// (pipeline/report_model.h) to text, JSON, Markdown or HTML. Renderers only render: nothing here
// computes a metric or touches a file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "base/interval_set.h"
#include "base/json_writer.h"
#include "diagnose/diagnose.h"
#include "model/trace.h"
#include "pipeline/report_model.h"

namespace gpuwhy {

// "errors": [{"path", "message"}], the same in every JSON output of gpuwhy.
void WriteFailures(JsonWriter& w, std::span<const ReportFailure> failures);

enum class TextColour { kOff, kOn };

// Every line of every text report fits this many columns (escape codes aside).
inline constexpr size_t kReportWidth = 100;

// How much of several ranks the Markdown report shows (--detail): a row per rank and the
// findings merged across ranks, short enough for one GitHub issue or comment, or every rank
// in full. One rank is always shown in full.
enum class ReportDetail { kCompact, kFull };
// "compact" or "full" (what --detail takes); nullopt for anything else.
std::optional<ReportDetail> ParseReportDetail(std::string_view name);

struct TextReportOptions {
  size_t top_n = 10;  // rows of top-N lists (kernels, gaps, streams, issuers)
  TextColour colour = TextColour::kOff;
  size_t detailed_findings = 3;  // findings shown with evidence and fixes; the rest in brief
  ReportDetail detail = ReportDetail::kCompact;  // Markdown of several ranks
};

// Per rank: a header, the diagnosis (ranked findings with evidence, recoverable time and
// fixes, then the checklist), then one compact table per analysis. Every line fits kReportWidth
// columns (escape codes aside) and every number carries its unit.
std::string RenderReportText(std::span<const RankReport> ranks, const TextReportOptions& options);

// The version of docs/report-schema.json this gpuwhy writes and reads back (gpuwhy diff).
inline constexpr int64_t kReportSchemaVersion = 1;

// {"schema_version": 1, "tool": "gpuwhy", "ranks": [...], "errors": [...]}: each rank's
// findings and checklist, every metric of its MetricSet plus the main tables, in a deterministic
// order; NaN and infinities are written as null, and so is a scope field meaning "all" (-1). The
// schema is docs/report-schema.json (JSON Schema draft 2020-12). |job| (several ranks of one job)
// adds the "cross_rank" member at the end.
std::string RenderReportJson(std::span<const RankReport> ranks,
                             std::span<const ReportFailure> failures, size_t top_n = 10,
                             const CrossRankReport* job = nullptr);

// The same report as Markdown for an issue tracker: per rank a findings table, each finding
// with its evidence, fixes as code blocks and how to verify, the checklist as a task list,
// and the text tables folded in a <details> block.
std::string RenderReportMarkdown(std::span<const RankReport> ranks,
                                 std::span<const ReportFailure> failures,
                                 const TextReportOptions& options);
// The compact Markdown of several ranks (ReportDetail::kCompact): a table with one row per
// rank (trace, step, GPU idle, findings, the worst and the top one), then the findings merged
// across ranks (worst severity, the ranks, the most recoverable time), the top |top_n| of them.
std::string RenderReportMarkdownCompact(std::span<const RankReport> ranks,
                                        std::span<const ReportFailure> failures,
                                        const TextReportOptions& options);

// The same report as one self-contained HTML page (inline CSS, SVG and a few lines of JS; no
// network access): per rank the verdict, step breakdown, utilization over time with idle gaps
// by cause, idle causes, kernels, communication, memory, checklist and import stats; with
// several ranks a per-rank step-time view first. Every trace string is escaped. docs/html.md.
// |job| (several ranks) adds the late-arrival heat map: per matched collective and rank, how
// long after the first rank it arrived.
std::string RenderReportHtml(std::span<const RankReport> ranks,
                             std::span<const ReportFailure> failures,
                             const CrossRankReport* job = nullptr);

enum class ReportFormat { kText, kJson, kMarkdown, kHtml };
// "text", "json", "md", "html" (what --format takes); kText for anything else.
ReportFormat ParseReportFormat(std::string_view name);

// The whole report in |format|: with a job-wide view (Report::job) its section comes first in
// text and Markdown and as the "cross_rank" member in JSON. |options.top_n| also bounds the
// JSON lists.
std::string RenderReport(const Report& report, ReportFormat format,
                         const TextReportOptions& options);

// Every not_applicable line of every analysis, as (analysis, reason), in list order.
struct NotApplicable {
  std::string analysis;
  std::string reason;
};
std::vector<NotApplicable> CollectNotApplicable(const TraceAnalysis& analysis);

}  // namespace gpuwhy
