// The cross-rank view as Markdown: the job findings as a table, the rest as the text tables.
#include <fmt/format.h>

#include "report/cross_rank_report.h"
#include "report/markdown_text.h"
#include "report/text_format.h"

namespace gpuwhy {

std::string RenderCrossRankMarkdown(const CrossRankReport& report,
                                    const TextReportOptions& options) {
  std::string out = fmt::format("## All ranks ({} ranks)\n\n", report.result.rank_count);
  const Diagnosis& d = report.diagnosis;
  if (d.findings.empty()) {
    out += "No job-wide rule fired.\n\n";
  } else {
    out +=
        "| # | severity | finding | rank | recoverable / step | title "
        "|\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < d.findings.size(); ++i) {
      const Finding& f = d.findings[i];
      out += fmt::format("| {} | {} | `{}` | {} | {} | {} |\n", i + 1, SeverityName(f.severity),
                         f.id, f.rank >= 0 ? fmt::format("{}", f.rank) : "job",
                         report::MsNs(f.recoverable_ns_per_step), report::MarkdownText(f.title));
    }
    out += '\n';
  }
  for (const std::string& w : report.result.warnings) {
    out += "> warning: " + report::MarkdownText(w) + "\n";
  }
  TextReportOptions plain = options;
  plain.colour = TextColour::kOff;
  std::string tables = RenderCrossRankText(report, plain);
  std::string fence = report::MarkdownFence(tables);
  out +=
      "\n<details><summary>Per-rank table, clock alignment, collectives, late "
      "arrivals</summary>\n\n" +
      fence + "text\n" + tables + fence + "\n\n</details>\n\n";
  return out;
}

}  // namespace gpuwhy
