// `--format md`: the report as Markdown that reads well pasted into an issue tracker. Per
// rank: the verdict, a findings table, each finding with its evidence table, where, fixes as
// code blocks and how to verify, the checklist as a task list, then the text tables folded
// in a <details> block so the issue stays short.
#include <fmt/format.h>

#include "report/diagnosis_sections.h"
#include "report/markdown_text.h"
#include "report/terminal_style.h"
#include "report/text_format.h"

namespace gpuwhy {
namespace report {
namespace {

// A table cell of our own text (numbers, units, comparisons, catalog sources): pipes escaped.
// Text from the trace goes through MarkdownText instead.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// Shell for commands and environment variables, Python for code, text for the rest.
std::string_view CodeLanguage(std::string_view code) {
  for (std::string_view shell :
       {"export ", "nvidia-smi", "gpuwhy ", "nsys ", "ncu ", "sudo ", "dmesg", "NCCL_", "CUDA_",
        "TORCH_", "PYTORCH_", "torchrun ", "python ", "numactl", "taskset"}) {
    if (code.starts_with(shell)) return "sh";
  }
  // Catalog "code" is sometimes advice in words ("WebDataset shards, numpy.memmap").
  return code.find_first_of("(=") == std::string_view::npos ? "text" : "python";
}

std::string Recoverable(const Finding& f) {
  if (f.recoverable_ns_per_step <= 0) return "not estimated";
  double pct = f.step_ns > 0 ? 100.0 * f.recoverable_ns_per_step / f.step_ns : 0;
  return fmt::format("{} ({})", MsNs(f.recoverable_ns_per_step), Pct(pct));
}

void FindingSection(std::string& out, size_t index, const Finding& f, TimeNs origin) {
  out += fmt::format("\n#### {}. {} ({}): {}\n\n", index + 1, MarkdownCode(f.id),
                     SeverityName(f.severity), MarkdownText(f.title));
  out += fmt::format(
      "Class **{}** · recoverable **{}** per step of {} · up to **{}** faster · "
      "confidence **{}**\n",
      BottleneckClassName(f.bottleneck_class), Recoverable(f), MsNs(f.step_ns),
      SpeedupText(f.SpeedupUpperBound()), ConfidenceName(f.confidence));
  if (!f.evidence.empty()) {
    out += "\n| Evidence | Scope | Value | Threshold | Source |\n|---|---|--:|---|---|\n";
    for (const FindingEvidence& e : f.evidence) {
      std::string scope = ScopeText(e.metric.scope);
      bool has_threshold =
          !e.comparison.empty() && (e.threshold != 0 || !e.threshold_source.empty());
      out += fmt::format(
          "| {} | {} | {} | {} | {} |\n", MarkdownCode(e.metric.id),
          scope.empty() ? "rank" : Cell(scope.substr(1, scope.size() - 2)),
          Cell(MetricValue(e.metric.value, e.metric.unit)),
          has_threshold ? Cell(e.comparison + " " + MetricValue(e.threshold, e.metric.unit)) : "",
          Cell(e.threshold_source));
    }
  }
  if (!f.ranges.empty()) {
    out += "\n**Where** (time from the trace start):\n\n";
    for (const EvidenceRange& r : f.ranges) out += "- " + MarkdownText(RangeText(r, origin)) + "\n";
  }
  if (!f.top_events.empty()) {
    out += "\n**Top events:** ";
    for (size_t i = 0; i < f.top_events.size(); ++i) {
      out += (i > 0 ? ", " : "") + MarkdownCode(f.top_events[i]);
    }
    out += "\n";
  }
  if (!f.quotes.empty()) {
    std::string lines;
    for (const SourceQuote& q : f.quotes) lines += QuoteText(q) + "\n";
    out += "\n**Log lines:**\n\n" + MarkdownCodeBlock("text", lines);
  }
  if (!f.fixes.empty()) {
    out += "\n**Fixes**, in order:\n\n";
    for (size_t i = 0; i < f.fixes.size(); ++i) {
      out += fmt::format("{}. {}\n", i + 1, MarkdownText(f.fixes[i].action));
      const std::string& code = f.fixes[i].code;
      if (!code.empty()) out += MarkdownCodeBlock(CodeLanguage(code), code, "   ");
    }
  }
  if (!f.verify.empty()) out += "\n**Verify:** " + MarkdownText(f.verify) + "\n";
}

void Checklist(std::string& out, const Diagnosis& d) {
  out += "\n### Checklist\n\n";
  for (const ChecklistItem& item : d.checklist) {
    out += fmt::format("- [{}] **{}**: {} ({})", item.status == AssessStatus::kAssessed ? "x" : " ",
                       ChecklistSectionName(item.section), MarkdownText(item.title),
                       AssessStatusName(item.status));
    if (!item.detail.empty()) out += ": " + MarkdownText(item.detail);
    out += "\n";
    if (item.status == AssessStatus::kAssessed) continue;
    if (!item.missing.empty()) out += "  - missing: " + MarkdownText(item.missing) + "\n";
    if (!item.command.empty()) out += "  - capture: " + MarkdownCode(item.command) + "\n";
  }
}

void Rank(std::string& out, const RankReport& rank, const TextReportOptions& options) {
  const RankHeader& h = rank.header;
  const Diagnosis& d = rank.diagnosis;
  const bool trace = HasTraceAnalysis(rank);
  std::string title = !trace ? "Source" : h.rank < 0 ? "Trace" : fmt::format("Rank {}", h.rank);
  out += fmt::format("\n## {}: {}\n\n", title, MarkdownCode(h.path));
  std::string verdict =
      d.findings.empty()
          ? std::string("no finding")
          : fmt::format("{} finding{}, worst **{}**", d.findings.size(),
                        d.findings.size() == 1 ? "" : "s", SeverityName(d.MaxSeverity()));
  if (d.kernel_total_only && d.step_ns > 0) {
    verdict += ". " + StepAndIdleText(d);
  } else if (d.step_ns > 0) {
    verdict += fmt::format(". Step {} ({}); GPU idle {} per step ({})", MsNs(d.step_ns),
                           d.steps_synthesized ? "no ProfilerStep: the whole trace"
                                               : fmt::format("mean of {} steps", d.step_count),
                           MsNs(d.idle_ns_per_step), Pct(100.0 * d.idle_ns_per_step / d.step_ns));
  }
  out += "**Verdict:** " + verdict + ".\n";
  if (rank.analysis.hta_compat) out += "\n" + HtaCompatText(rank.analysis) + ".\n";
  const ReportRows rows = SelectReportRows(h, rank.analysis);
  for (const ReportDevice& dev : h.devices) {
    if ((trace && !dev.active) || !rows.devices.Keeps(dev.id)) continue;
    out += fmt::format(
        "\nGPU {}: {}{}", dev.id, dev.name.empty() ? "unknown model" : MarkdownText(dev.name),
        dev.memory_bytes > 0 ? fmt::format(" ({})", Bytes(static_cast<double>(dev.memory_bytes)))
                             : "");
  }
  if (rows.Capped()) out += "\n\n*Rows left out:* " + MarkdownText(rows.Why()) + ".";
  out += "\n";
  if (!d.findings.empty()) {
    out +=
        "\n### Findings\n\n| # | Severity | Finding | Recoverable / step | Speed-up ≤ | "
        "Confidence |\n|--:|---|---|--:|--:|---|\n";
    for (size_t i = 0; i < d.findings.size(); ++i) {
      const Finding& f = d.findings[i];
      out += fmt::format("| {} | {} | {}: {} | {} | {} | {} |\n", i + 1, SeverityName(f.severity),
                         MarkdownCode(f.id), MarkdownText(f.title), Recoverable(f),
                         SpeedupText(f.SpeedupUpperBound()), ConfidenceName(f.confidence));
    }
    for (size_t i = 0; i < d.findings.size(); ++i) {
      FindingSection(out, i, d.findings[i], h.span.start);
    }
  }
  if (!d.notes.empty()) {
    out += "\n**Notes**\n\n";
    for (const std::string& note : d.notes) out += "- " + MarkdownText(note) + "\n";
  }
  Checklist(out, d);
  if (!trace) return;
  std::string tables;
  TextReportOptions plain = options;
  plain.colour = TextColour::kOff;
  Section s{h, rank.analysis, plain};
  RenderAnalysisTables(tables, s);
  RenderImportStats(tables, s);
  tables = TerminalText(tables, ColourMode::kOff);
  // The tables start with a line break: the block opens on the fence's line.
  std::string fence = MarkdownFence(tables);
  out += "\n<details><summary>Analysis tables and import statistics</summary>\n\n" + fence +
         "text" + tables + fence + "\n\n</details>\n";
}

}  // namespace
}  // namespace report

std::string RenderReportMarkdown(std::span<const RankReport> ranks,
                                 std::span<const ReportFailure> failures,
                                 const TextReportOptions& options) {
  std::string out = "# gpuwhy report\n";
  if (!failures.empty()) {
    out += "\n**Inputs that could not be used:**\n\n";
    for (const ReportFailure& f : failures) out += "- " + report::MarkdownText(f.message) + "\n";
  }
  for (const RankReport& rank : ranks) report::Rank(out, rank, options);
  return out;
}

}  // namespace gpuwhy
