// Text report: step breakdown (TensorBoard plugin) and idle-gap attribution.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "report/text_format.h"
#include "report/text_sections.h"
#include "base/percent.h"

namespace gpuwhy::report {
namespace {

// The host name of the longest piece that carries the gap's dominant cause.
std::string GapHostName(const IdleGap& gap) {
  const IdlePiece* best = nullptr;
  for (const IdlePiece& piece : gap.pieces) {
    if (piece.cause != gap.dominant || piece.host_name.empty()) continue;
    if (best == nullptr || piece.range.length() > best->range.length()) best = &piece;
  }
  return best == nullptr ? "" : best->host_name;
}

void RenderTopGaps(std::string& out, const Section& s) {
  const IdleGapsResult& r = s.analysis.idle_gaps;
  if (r.top_gaps.empty()) return;
  Line(out, "  longest gaps (from / to: offset from the trace start)");
  TextTable t({{"GPU", 4},
               {"from", 14},
               {"to", 14},
               {"length", 11},
               {"cause", 13, Align::kLeft},
               {"host op during the gap", 32, Align::kLeft}},
              4);
  for (size_t i = 0; i < r.top_gaps.size() && i < s.options.top_n; ++i) {
    const IdleGap& gap = r.top_gaps[i];
    t.AddRow({fmt::format("{}", gap.device), Offset(gap.range.start, s.header.span.start),
              Offset(gap.range.end, s.header.span.start),
              Duration(static_cast<double>(gap.range.length())),
              std::string(IdleCauseName(gap.dominant)), GapHostName(gap)});
  }
  t.Render(out);
}

}  // namespace

void RenderSteps(std::string& out, const Section& s) {
  const StepBreakdownResult& r = s.analysis.steps;
  if (r.steps.empty()) {
    Heading(out, s, "Step breakdown", "");
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  Heading(out, s, "Step breakdown",
          fmt::format("exclusive, as the TensorBoard plugin; {} step{}, mean {}, median {}",
                      r.steps.size(), r.steps.size() == 1 ? "" : "s", Ms(r.mean_total_ns / 1e6),
                      MsNs(r.median_ns)));
  TextTable t(
      {{"category", 14, Align::kLeft}, {"mean", 14}, {"% of step", 10}, {"min", 14}, {"max", 14}});
  for (size_t c = 0; c < kStepCategoryCount; ++c) {
    DurationNs lo = std::numeric_limits<DurationNs>::max();
    DurationNs hi = 0;
    for (const StepCosts& step : r.steps) {
      lo = std::min(lo, step.ns[c]);
      hi = std::max(hi, step.ns[c]);
    }
    t.AddRow({std::string(StepCategoryName(static_cast<StepCategory>(c))), Ms(r.mean_ns[c] / 1e6),
              Pct(PercentOf(r.mean_ns[c], r.mean_total_ns)), MsNs(lo), MsNs(hi)});
  }
  t.AddRow({"total", Ms(r.mean_total_ns / 1e6), Pct(100), MsNs(r.min_ns), MsNs(r.max_ns)});
  t.Render(out);
  if (r.steps.size() > 1 && !r.slowest_steps.empty()) {
    std::vector<std::string> labels;
    for (size_t i = 0; i < r.slowest_steps.size() && i < 3; ++i)
      labels.push_back(r.slowest_steps[i].label);
    Wrapped(out, fmt::format("slowest: {}", fmt::join(labels, "; ")), 2);
  }
  NotApplicableLines(out, r.not_applicable);
}

void RenderIdleGaps(std::string& out, const Section& s) {
  const IdleGapsResult& r = s.analysis.idle_gaps;
  const IdleTotals& total = r.rank;
  if (total.window_ns <= 0) {
    Heading(out, s, "Idle-gap attribution", "");
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  Heading(
      out, s, "Idle-gap attribution",
      fmt::format(
          "{} idle in {} gaps = {} of {} step time", MsNs(total.idle_ns), Count(total.gap_count),
          Pct(PercentOf(static_cast<double>(total.idle_ns), static_cast<double>(total.window_ns))),
          MsNs(total.window_ns)));
  TextTable t({{"cause", 14, Align::kLeft},
               {"idle", 14},
               {"% of idle", 10},
               {"% of step", 10},
               {"per step", 12},
               {"pieces", 10}});
  const double steps = static_cast<double>(std::max<int64_t>(r.step_count, 1));
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    if (total.ns[c] == 0 && total.pieces[c] == 0) continue;
    double ns = static_cast<double>(total.ns[c]);
    t.AddRow({std::string(IdleCauseName(static_cast<IdleCause>(c))), MsNs(total.ns[c]),
              Pct(PercentOf(ns, static_cast<double>(total.idle_ns))),
              Pct(PercentOf(ns, static_cast<double>(total.window_ns))), Ms(ns / 1e6 / steps),
              Count(total.pieces[c])});
  }
  t.Render(out);
  RenderTopGaps(out, s);
  if (!r.host_busy_top.empty()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < r.host_busy_top.size() && i < 5; ++i) {
      names.push_back(fmt::format("{} ({})", FitWidth(r.host_busy_top[i].name, 40),
                                  MsNs(r.host_busy_top[i].ns)));
    }
    Wrapped(out, fmt::format("host busy during idle: {}", fmt::join(names, ", ")), 2);
  }
  NotApplicableLines(out, r.not_applicable);
}

}  // namespace gpuwhy::report
