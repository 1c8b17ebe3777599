// Assembles the cross-rank view: rank ids resolved, mixed inputs reported, the per-rank table
// and its spread, then alignment, matching, stragglers and scaling (separate files).
#include "ranks/cross_rank.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analyze/communication.h"
#include "analyze/idle_gaps.h"
#include "analyze/step_breakdown.h"

namespace gpuwhy {
namespace {

std::string Ranges(const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
    i = j + 1;
  }
  return out;
}

// The ranks of [0, world_size) that no summary holds, as "0-3, 7": the gaps between the
// ranks present, so the work and the text are bounded by the files given, never by the
// world_size one file claims (two 0.5 KB traces claiming 2^62 ranks ended in bad_alloc).
std::string MissingRanges(const std::vector<RankSummary>& ranks, int64_t world_size) {
  std::vector<int64_t> present;
  present.reserve(ranks.size());
  for (const RankSummary& s : ranks) {
    if (s.rank >= 0 && s.rank < world_size) present.push_back(s.rank);
  }
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  std::string out;
  auto gap = [&out](int64_t first, int64_t last) {  // [first, last], both missing
    if (first > last) return;
    if (!out.empty()) out += ", ";
    out += first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
  };
  int64_t next = 0;
  for (int64_t r : present) {
    gap(next, r - 1);
    next = r + 1;
  }
  gap(next, world_size - 1);
  return out;
}

// Unknown ranks get the next free id; a rank seen twice keeps its first file.
std::vector<RankSummary> ResolveRanks(std::vector<RankSummary> in, CrossRankResult& out) {
  std::stable_sort(in.begin(), in.end(),
                   [](const RankSummary& a, const RankSummary& b) { return a.path < b.path; });
  std::map<int64_t, size_t> seen;
  std::vector<RankSummary> kept;
  std::vector<RankSummary> unknown;
  for (RankSummary& s : in) {
    if (s.rank == kNoValue) {
      unknown.push_back(std::move(s));
      continue;
    }
    if (auto it = seen.find(s.rank); it != seen.end()) {
      out.warnings.push_back(
          fmt::format("rank {} appears twice: {} is left out of the cross-rank view (kept {})",
                      s.rank, s.path, kept[it->second].path));
      continue;
    }
    seen[s.rank] = kept.size();
    kept.push_back(std::move(s));
  }
  int64_t next = seen.empty() ? 0 : seen.rbegin()->first + 1;
  for (RankSummary& s : unknown) {
    out.warnings.push_back(
        fmt::format("{}: rank unknown (no distributedInfo, no rank-N/worker-N in the file name); "
                    "called rank {} here",
                    s.path, next));
    s.rank = next++;
    kept.push_back(std::move(s));
  }
  std::sort(kept.begin(), kept.end(),
            [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
  return kept;
}

void CheckMixedInputs(const std::vector<RankSummary>& ranks, CrossRankResult& out) {
  std::map<int64_t, std::vector<int64_t>> by_world;
  for (const RankSummary& s : ranks) {
    if (s.world_size > 0) by_world[s.world_size].push_back(s.rank);
  }
  if (by_world.size() > 1) {
    out.warnings.push_back(fmt::format(
        "the traces disagree on the world size ({} values); using the largest", by_world.size()));
  }
  if (!by_world.empty()) out.world_size = by_world.rbegin()->first;
  if (out.world_size > 0) {
    const std::string missing = MissingRanges(ranks, out.world_size);
    if (!missing.empty()) {
      out.warnings.push_back(fmt::format("{} of {} ranks present; missing: {}", ranks.size(),
                                         out.world_size, missing));
    }
  }
  std::map<size_t, std::vector<int64_t>> by_steps;
  for (const RankSummary& s : ranks) by_steps[s.steps.size()].push_back(s.rank);
  if (by_steps.size() > 1) {
    std::string parts;
    for (const auto& [steps, ids] : by_steps) {
      parts +=
          fmt::format("{}{} step(s) on rank {}", parts.empty() ? "" : "; ", steps, Ranges(ids));
    }
    out.warnings.push_back("the ranks hold different step counts (" + parts +
                           "); collectives are matched per step number");
  }
}

CrossRankRow RowOf(const RankSummary& s) {
  CrossRankRow row;
  row.rank = s.rank;
  row.path = s.path;
  row.device = s.device_name;
  row.steps = static_cast<int64_t>(s.steps.size());
  row.step_median_ms = s.MetricValue(metric::kStepTimeMedianMs.id, 0);
  row.step_mean_ms = s.MetricValue(metric::kStepTimeMs.id, 0);
  auto pct = [&](StepCategory c) {
    return s.MetricValue(metric::kStepCategoryPct.Id(StepCategoryName(c)), 0);
  };
  row.kernel_pct = pct(StepCategory::kKernel);
  row.comm_pct = pct(StepCategory::kCommunication);
  row.memcpy_pct = pct(StepCategory::kMemcpy) + pct(StepCategory::kMemset);
  row.host_pct = pct(StepCategory::kRuntime) + pct(StepCategory::kDataLoader) +
                 pct(StepCategory::kCpuExec) + pct(StepCategory::kOther);
  row.idle_pct = s.MetricValue(metric::kIdleTotalPct.id, 0);
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    std::string_view name = IdleCauseName(static_cast<IdleCause>(c));
    double v = s.MetricValue(metric::kIdleCausePct.Id(name), 0);
    if (v > row.top_idle_cause_pct) {
      row.top_idle_cause_pct = v;
      row.top_idle_cause = std::string(name);
    }
  }
  double steps = std::max(1.0, s.MetricValue(metric::kStepCount.id, 1));
  row.comm_exposed_ms_per_step = s.MetricValue(metric::kCommExposedMs.id, 0) / steps;
  if (!s.findings.empty()) row.top_finding = s.findings.front().id;
  return row;
}

RankSpread SpreadOf(const std::vector<CrossRankRow>& rows, double CrossRankRow::*field) {
  RankSpread spread;
  if (rows.empty()) return spread;
  std::vector<std::pair<double, int64_t>> values;
  for (const CrossRankRow& r : rows) values.push_back({r.*field, r.rank});
  std::sort(values.begin(), values.end());
  spread.min = values.front().first;
  spread.min_rank = values.front().second;
  spread.max = values.back().first;
  spread.max_rank = values.back().second;
  size_t n = values.size();
  spread.median =
      n % 2 == 1 ? values[n / 2].first : (values[n / 2 - 1].first + values[n / 2].first) / 2;
  return spread;
}

ScalingResult Scale(const RankSummary& single, const CrossRankResult& r) {
  ScalingResult s;
  s.single_step_ms = single.MetricValue(metric::kStepTimeMedianMs.id, 0);
  s.multi_step_ms = r.step_time_ms.median;
  s.ranks = r.world_size > 0 ? r.world_size : r.rank_count;
  if (s.single_step_ms <= 0 || s.multi_step_ms <= 0 || s.ranks <= 0) return s;
  s.present = true;
  // Data parallel with the same per-GPU batch: N-rank throughput / single = N × t1 / tN.
  s.speedup = static_cast<double>(s.ranks) * s.single_step_ms / s.multi_step_ms;
  s.efficiency = s.speedup / static_cast<double>(s.ranks);
  return s;
}

}  // namespace

CrossRankResult AnalyzeCrossRank(std::vector<RankSummary> summaries,
                                 const CrossRankOptions& options,
                                 const RankSummary* baseline_single) {
  CrossRankResult out;
  out.link_peak_gbps = options.link_peak_gbps;
  std::vector<RankSummary> ranks = ResolveRanks(std::move(summaries), out);
  CheckMixedInputs(ranks, out);
  out.rank_count = static_cast<int64_t>(ranks.size());
  for (const RankSummary& s : ranks) out.ranks.push_back(RowOf(s));
  out.step_time_ms = SpreadOf(out.ranks, &CrossRankRow::step_median_ms);
  out.comm_exposed_ms = SpreadOf(out.ranks, &CrossRankRow::comm_exposed_ms_per_step);

  std::vector<const RankSummary*> view;
  for (const RankSummary& s : ranks) view.push_back(&s);
  out.clocks = EstimateClockOffsets(view, options);
  for (const RankClock& c : out.clocks) {
    if (c.aligned && c.uncertainty_ns == 0 && c.matched > 0 && out.reference_rank == kNoValue) {
      out.reference_rank = c.rank;
    }
    if (!c.aligned) continue;
    out.max_skew_ns =
        std::max<DurationNs>(out.max_skew_ns, c.offset_ns < 0 ? -c.offset_ns : c.offset_ns);
    out.max_uncertainty_ns = std::max(out.max_uncertainty_ns, c.uncertainty_ns);
  }
  std::vector<int64_t> unaligned;
  for (const RankClock& c : out.clocks) {
    if (!c.aligned) unaligned.push_back(c.rank);
  }
  if (out.reference_rank == kNoValue && ranks.size() > 1) {
    // Nothing to align against (CPU-only ranks over gloo, or no collective recorded).
    out.warnings.push_back(
        "no two ranks share a recorded GPU collective: clocks not aligned, no collective table");
  } else if (!unaligned.empty() && ranks.size() > 1) {
    out.warnings.push_back(
        fmt::format("rank {} shares no collective with rank {}: not aligned, left out of the "
                    "collective table",
                    Ranges(unaligned), out.reference_rank));
  }
  out.collectives = MatchCollectives(view, out.clocks, options, &out.unmatched_kernels);
  out.stragglers = FindStragglers(view, out.clocks, out.collectives, options);
  std::vector<double> busbw;
  for (const MatchedCollective& m : out.collectives) {
    if (m.busbw_gbps > 0) busbw.push_back(m.busbw_gbps);
  }
  if (!busbw.empty()) {
    std::sort(busbw.begin(), busbw.end());
    out.busbw_median_gbps = busbw[busbw.size() / 2];
  }
  if (baseline_single != nullptr) out.scaling = Scale(*baseline_single, out);
  return out;
}

}  // namespace gpuwhy
