// The cross-rank view as text: verdict first, then the tables that support it.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/cross_rank_report.h"
#include "report/diagnosis_sections.h"
#include "report/terminal_style.h"
#include "report/text_format.h"

namespace gpuwhy {
namespace {

using report::Column;
using report::Line;
using report::Ms;
using report::MsNs;
using report::Pct;
using report::TextTable;
using report::Wrapped;

std::string RankText(int64_t rank) { return rank == kNoValue ? "?" : fmt::format("{}", rank); }

void Findings(std::string& out, const CrossRankReport& r) {
  const Diagnosis& d = r.diagnosis;
  Line(out, fmt::format("Job diagnosis: {} finding{}; step {} (median over ranks)",
                        d.findings.size(), d.findings.size() == 1 ? "" : "s", MsNs(d.step_ns)));
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    std::string who = f.rank >= 0 ? fmt::format(" rank {}", f.rank) : " job";
    Wrapped(out,
            fmt::format("{}. [{}] {}{}: {}", i + 1, SeverityName(f.severity), f.id, who, f.title),
            2);
    Line(out,
         fmt::format("     recoverable {}/step, speed-up up to {}", MsNs(f.recoverable_ns_per_step),
                     report::SpeedupText(f.SpeedupUpperBound())));
    for (const FindingEvidence& e : f.evidence) Wrapped(out, "     " + report::EvidenceText(e), 5);
    if (!f.top_events.empty())
      Wrapped(out,
              "     slowest shared kernels: " + fmt::format("{}", fmt::join(f.top_events, "; ")),
              5);
    if (!f.fixes.empty())
      Wrapped(out, "     fix: " + f.fixes.front().action + ": " + f.fixes.front().code, 5);
  }
  for (const RuleOutcome& o : d.outcomes) {
    if (o.status == AssessStatus::kNotAssessed)
      Wrapped(out, fmt::format("  not assessed: {}: {}", o.rule_id, o.note), 4);
  }
  for (const std::string& note : d.notes) Wrapped(out, "  warning: " + note, 4);
}

// The ranks' own top findings, counted: a job whose ranks all stall on the same thing (the
// DataLoader, say) shows it here even when no job-level rule fires.
void TopFindings(std::string& out, const CrossRankResult& r) {
  std::map<std::string, int64_t> count;
  for (const CrossRankRow& row : r.ranks) {
    if (!row.top_finding.empty()) ++count[row.top_finding];
  }
  if (count.empty()) return;
  std::vector<std::pair<int64_t, std::string>> by_count;
  for (const auto& [id, n] : count) by_count.push_back({-n, id});
  std::sort(by_count.begin(), by_count.end());
  std::string parts;
  for (size_t i = 0; i < by_count.size() && i < 4; ++i) {
    parts += fmt::format("{}{} on {} of {}", i ? "; " : "", by_count[i].second, -by_count[i].first,
                         r.ranks.size());
  }
  if (by_count.size() > 4)
    parts += fmt::format("; {} more in the JSON report", by_count.size() - 4);
  Wrapped(out, fmt::format("ranks' own top finding: {}", parts), 4);
}

void RankTable(std::string& out, const CrossRankResult& r, size_t top_n) {
  Line(out, "");
  const RankSpread& s = r.step_time_ms;
  Line(out,
       fmt::format("Per rank ({} ranks): median step min {} (rank {}), median {}, max {} (rank {})",
                   r.rank_count, Ms(s.min), RankText(s.min_rank), Ms(s.median), Ms(s.max),
                   RankText(s.max_rank)));
  Wrapped(out,
          "  % of step time (TensorBoard plugin breakdown); idle = device idle in the steps; top "
          "idle cause and exposed communication per step",
          4);
  TextTable t({{"rank", 6},
               {"steps", 6},
               {"step med", 12},
               {"kernel", 8},
               {"comm", 8},
               {"memcpy", 8},
               {"host", 8},
               {"idle", 8},
               {"top idle cause", 22, report::Align::kLeft},
               {"exp. comm", 10}});
  std::vector<const CrossRankRow*> rows;
  for (const CrossRankRow& row : r.ranks) rows.push_back(&row);
  size_t limit = std::max<size_t>(top_n, 16);
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    const CrossRankRow& row = *rows[i];
    std::string cause = row.top_idle_cause.empty()
                            ? "-"
                            : fmt::format("{} {}", row.top_idle_cause, Pct(row.top_idle_cause_pct));
    t.AddRow({RankText(row.rank), fmt::format("{}", row.steps), Ms(row.step_median_ms),
              Pct(row.kernel_pct), Pct(row.comm_pct), Pct(row.memcpy_pct), Pct(row.host_pct),
              Pct(row.idle_pct), cause, Ms(row.comm_exposed_ms_per_step)});
  }
  t.Render(out);
  if (rows.size() > limit)
    Line(out, fmt::format("  ... {} more ranks in the JSON report", rows.size() - limit));
  TopFindings(out, r);
}

void Alignment(std::string& out, const CrossRankResult& r) {
  Line(out, "");
  Line(out, fmt::format(
                "Clock alignment (reference rank {}): largest offset {}, largest uncertainty ±{}",
                RankText(r.reference_rank), report::Duration(static_cast<double>(r.max_skew_ns)),
                report::Duration(static_cast<double>(r.max_uncertainty_ns))));
  Wrapped(out,
          "  offset = median difference of NCCL kernel ends (same step, kind, group) against the "
          "reference "
          "rank; ± = 1.4826 × MAD of those differences, at least 1 µs",
          4);
  std::vector<std::string> cells;
  for (const RankClock& c : r.clocks) {
    cells.push_back(c.aligned
                        ? fmt::format("r{} {:+.1f} µs ±{:.1f} (n={})", c.rank, NsToUs(c.offset_ns),
                                      NsToUs(c.uncertainty_ns), c.matched)
                        : fmt::format("r{} not aligned", c.rank));
  }
  Wrapped(out, "  " + fmt::format("{}", fmt::join(cells, "; ")), 4);
}

void Collectives(std::string& out, const CrossRankResult& r, size_t top_n) {
  Line(out, "");
  Line(out, fmt::format("Collectives matched across ranks: {} ({} kernels matched no other rank); "
                        "bus bandwidth median {}",
                        r.collectives.size(), r.unmatched_kernels,
                        r.busbw_median_gbps > 0 ? report::GBps(r.busbw_median_gbps)
                                                : std::string("n/a (no sizes)")));
  Wrapped(out,
          "  aligned times; spread = last - first arrival (kernel start); late by = last arrival - "
          "median of the "
          "others; wait = sum of every rank's wait for the last; busbw = size / (median end - last "
          "arrival) × "
          "nccl-tests factor",
          4);
  std::vector<const MatchedCollective*> sorted;
  for (const MatchedCollective& m : r.collectives) sorted.push_back(&m);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->total_wait_ns > b->total_wait_ns;
  });
  TextTable t({{"step", 7},
               {"collective", 14, report::Align::kLeft},
               {"#", 4},
               {"ranks", 5},
               {"spread", 11},
               {"late rank", 9},
               {"late by", 11},
               {"wait (sum)", 11},
               {"size", 10},
               {"busbw", 11}});
  for (size_t i = 0; i < sorted.size() && i < top_n; ++i) {
    const MatchedCollective& m = *sorted[i];
    t.AddRow({m.step == kNoValue ? "-" : fmt::format("{}", m.step), m.kind,
              fmt::format("{}", m.ordinal), fmt::format("{}", m.arrivals.size()),
              MsNs(m.last_arrival - m.first_arrival), RankText(m.late_rank), MsNs(m.late_by_ns),
              MsNs(m.total_wait_ns),
              m.bytes > 0 ? report::Bytes(static_cast<double>(m.bytes)) : "-",
              m.busbw_gbps > 0 ? report::GBps(m.busbw_gbps) : "-"});
  }
  if (!sorted.empty())
    Line(out, fmt::format("  the {} with the most waiting:", std::min(top_n, sorted.size())));
  t.Render(out);
}

void Stragglers(std::string& out, const CrossRankResult& r, size_t top_n) {
  Line(out, "");
  Line(out,
       "Late arrivals per rank (decisively last: > 10 µs and > 3× clock uncertainty after the "
       "second-latest)");
  Wrapped(out,
          "  Δ = this rank minus the peers' median before the collective; kernels = its time on "
          "the same "
          "kernels / the peers' median",
          4);
  TextTable t({{"rank", 5},
               {"late at", 13},
               {"late by", 10},
               {"wait/step", 10},
               {"cause", 10, report::Align::kLeft},
               {"Δcompute", 10},
               {"Δinput", 10},
               {"Δstart", 10},
               {"kernels", 7}});
  size_t shown = 0;
  for (const StragglerStats& s : r.stragglers) {
    if (shown >= top_n) break;
    if (s.late_count == 0 && shown > 0) break;
    ++shown;
    if (s.late_count == 0) {
      Line(out, "  no rank arrives decisively last at any collective");
      return;
    }
    t.AddRow({RankText(s.rank),
              fmt::format("{}/{} ({})", s.late_count, s.collectives, Pct(100 * s.late_fraction)),
              MsNs(s.mean_late_ns), MsNs(s.others_wait_ns_per_step), s.cause,
              MsNs(s.compute_delta_ns), MsNs(s.input_wait_delta_ns), MsNs(s.step_start_delta_ns),
              s.same_kernels_ratio > 0 ? fmt::format("{:.3f}x", s.same_kernels_ratio) : "-"});
  }
  t.Render(out);
}

void ScalingLine(std::string& out, const ScalingResult& s) {
  if (!s.present) return;
  Line(out, "");
  Line(out, fmt::format("Scaling: {} ranks, step {} vs one GPU {}: speed-up {:.2f}x, efficiency {} "
                        "(same per-GPU batch assumed)",
                        s.ranks, Ms(s.multi_step_ms), Ms(s.single_step_ms), s.speedup,
                        Pct(100 * s.efficiency)));
}

}  // namespace

std::string RenderCrossRankText(const CrossRankReport& report, const TextReportOptions& options) {
  std::string out;
  Line(out, std::string(kReportWidth, '='));
  Line(out, fmt::format("All ranks: {} rank(s){}", report.result.rank_count,
                        report.result.world_size > 0
                            ? fmt::format(" of world size {}", report.result.world_size)
                            : ""));
  Findings(out, report);
  RankTable(out, report.result, options.top_n);
  Alignment(out, report.result);
  Collectives(out, report.result, options.top_n);
  Stragglers(out, report.result, options.top_n);
  ScalingLine(out, report.result.scaling);
  Line(out, std::string(kReportWidth, '='));
  out += '\n';
  return TerminalText(out, options.colour == TextColour::kOn ? ColourMode::kOn : ColourMode::kOff);
}

}  // namespace gpuwhy
