// `--format md --detail compact`, the default for several ranks: the full report of eight
// ranks is about three times what GitHub accepts in one issue or comment (65,536
// characters), so each rank is one table row and the findings are merged across ranks; the
// job verdict (the cross-rank section) comes before it as in the full report.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/diagnosis_sections.h"
#include "report/markdown_text.h"
#include "report/text_format.h"

namespace gpuwhy {
namespace report {
namespace {

std::string RankLabel(const RankReport& rank, size_t index) {
  if (!HasTraceAnalysis(rank)) return "source";
  return rank.header.rank >= 0 ? fmt::format("{}", rank.header.rank) : fmt::format("#{}", index);
}

// One finding id over every rank where it fired: its worst severity and the rank where it
// costs most (whose title is shown).
struct MergedFinding {
  const Finding* most = nullptr;
  Severity worst = Severity::kInfo;
  std::vector<std::string> ranks;
};

std::vector<MergedFinding> MergeAcrossRanks(std::span<const RankReport> ranks) {
  std::map<std::string, MergedFinding> by_id;
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (const Finding& f : ranks[i].diagnosis.findings) {
      MergedFinding& m = by_id[f.id];
      if (m.most == nullptr || f.recoverable_ns_per_step > m.most->recoverable_ns_per_step) {
        m.most = &f;
      }
      m.worst = std::max(m.worst, f.severity);
      m.ranks.push_back(RankLabel(ranks[i], i));
    }
  }
  std::vector<MergedFinding> merged;
  for (auto& [id, m] : by_id) merged.push_back(std::move(m));
  std::stable_sort(merged.begin(), merged.end(),
                   [](const MergedFinding& a, const MergedFinding& b) {
                     if (a.worst != b.worst) return a.worst > b.worst;
                     return a.most->recoverable_ns_per_step > b.most->recoverable_ns_per_step;
                   });
  return merged;
}

std::string RankRow(const RankReport& rank, size_t index) {
  const Diagnosis& d = rank.diagnosis;
  std::string step = d.step_ns > 0 ? MsNs(d.step_ns) : "";
  std::string idle = d.step_ns > 0 ? fmt::format("{} ({})", MsNs(d.idle_ns_per_step),
                                                 Pct(100.0 * d.idle_ns_per_step / d.step_ns))
                                   : "";
  std::string top = d.findings.empty() ? "" : MarkdownCode(d.findings.front().id);
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", RankLabel(rank, index),
                     MarkdownCode(rank.header.path), step, idle, d.findings.size(),
                     d.findings.empty() ? "" : SeverityName(d.MaxSeverity()), top);
}

}  // namespace
}  // namespace report

std::string RenderReportMarkdownCompact(std::span<const RankReport> ranks,
                                        std::span<const ReportFailure> failures,
                                        const TextReportOptions& options) {
  using namespace report;
  std::string out = "# gpuwhy report\n";
  if (!failures.empty()) {
    out += "\n**Inputs that could not be used:**\n\n";
    for (const ReportFailure& f : failures) out += "- " + MarkdownText(f.message) + "\n";
  }
  out += fmt::format("\n## Ranks ({})\n\n", ranks.size());
  out +=
      "| Rank | Trace | Step | GPU idle / step | Findings | Worst | Top finding |\n"
      "|--:|---|--:|--:|--:|---|---|\n";
  for (size_t i = 0; i < ranks.size(); ++i) out += RankRow(ranks[i], i);
  std::vector<MergedFinding> merged = MergeAcrossRanks(ranks);
  if (!merged.empty()) {
    out +=
        "\n## Top findings\n\n| Finding | Worst | Ranks | Recoverable / step (most) | Title |\n"
        "|---|---|---|--:|---|\n";
    for (size_t i = 0; i < merged.size() && i < options.top_n; ++i) {
      const MergedFinding& m = merged[i];
      const Finding& f = *m.most;
      std::string ranks_text = m.ranks.size() == ranks.size()
                                   ? fmt::format("all {}", ranks.size())
                                   : fmt::format("{}", fmt::join(m.ranks, ", "));
      out += fmt::format(
          "| {} | {} | {} | {} | {} |\n", MarkdownCode(f.id), SeverityName(m.worst), ranks_text,
          f.recoverable_ns_per_step > 0 ? MsNs(f.recoverable_ns_per_step) : "not estimated",
          MarkdownText(f.title));
    }
    if (merged.size() > options.top_n) {
      out += fmt::format("\n{} more finding ids.\n", merged.size() - options.top_n);
    }
  }
  out +=
      "\nEvidence, fixes, checklist and analysis tables per rank: `gpuwhy analyze --format md "
      "--detail full`.\n";
  return out;
}

}  // namespace gpuwhy
