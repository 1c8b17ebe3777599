// Stragglers: who arrives decisively last at the collectives, by how much, what it costs the
// others, and why — each late arrival is split into the rank's extra time before the
// collective against the median of its peers: a later step start, more computation (a slow
// GPU: the same kernels take longer), more input wait, and the rest (host time).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ranks/cross_rank.h"
#include "base/median.h"

namespace gpuwhy {
namespace {

struct Deltas {
  double step_start = 0;
  double compute = 0;
  double input_wait = 0;
  double late = 0;
};

Deltas DeltasAt(const MatchedCollective& m, size_t late_index) {
  const CollectiveArrival& late = m.arrivals[late_index];
  std::vector<TimeNs> starts;
  std::vector<DurationNs> compute;
  std::vector<DurationNs> input;
  std::vector<TimeNs> arrivals;
  for (size_t i = 0; i < m.arrivals.size(); ++i) {
    if (i == late_index) continue;
    starts.push_back(m.arrivals[i].step_start);
    compute.push_back(m.arrivals[i].compute_before_ns);
    input.push_back(m.arrivals[i].input_wait_before_ns);
    arrivals.push_back(m.arrivals[i].arrival);
  }
  Deltas d;
  d.step_start = static_cast<double>(late.step_start - MedianOf(starts));
  d.compute = static_cast<double>(late.compute_before_ns - MedianOf(compute));
  d.input_wait = static_cast<double>(late.input_wait_before_ns - MedianOf(input));
  d.late = static_cast<double>(late.arrival - MedianOf(arrivals));
  return d;
}

std::string CauseOf(const StragglerStats& s) {
  std::pair<DurationNs, const char*> parts[] = {{s.compute_delta_ns, "compute"},
                                                {s.input_wait_delta_ns, "input_wait"},
                                                {s.step_start_delta_ns, "step_start"},
                                                {s.host_delta_ns, "host"}};
  auto best = std::max_element(std::begin(parts), std::end(parts),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
  return best->first > 0 ? best->second : "host";
}

// Same kernel names as the peers: this rank's time against what the peers' median per-call
// time predicts for its calls. Names only count when at least half the peers ran them.
void CompareKernels(const RankSummary& mine, const std::vector<const RankSummary*>& peers,
                    StragglerStats& s) {
  std::map<std::string, std::vector<double>> peer_means;
  for (const RankSummary* p : peers) {
    for (const KernelTotal& k : p->kernels) {
      if (k.count > 0)
        peer_means[k.name].push_back(static_cast<double>(k.total_ns) /
                                     static_cast<double>(k.count));
    }
  }
  double actual = 0;
  double expected = 0;
  std::vector<std::pair<double, std::string>> excess;
  for (const KernelTotal& k : mine.kernels) {
    auto it = peer_means.find(k.name);
    if (it == peer_means.end() || it->second.size() * 2 < peers.size() || k.count == 0) continue;
    double predicted = MedianOf(it->second) * static_cast<double>(k.count);
    actual += static_cast<double>(k.total_ns);
    expected += predicted;
    double extra = static_cast<double>(k.total_ns) - predicted;
    if (extra > 0 && predicted > 0) {
      std::string name = k.name.substr(0, 60);
      excess.push_back({extra, fmt::format("{} (+{:.0f}%)", name, 100.0 * extra / predicted)});
    }
  }
  s.same_kernels_ratio = expected > 0 ? actual / expected : 0;
  std::sort(excess.begin(), excess.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < excess.size() && i < 3; ++i) s.slowest_kernels.push_back(excess[i].second);
}

}  // namespace

std::vector<StragglerStats> FindStragglers(const std::vector<const RankSummary*>& ranks,
                                           const std::vector<RankClock>& clocks,
                                           const std::vector<MatchedCollective>& collectives,
                                           const CrossRankOptions& options) {
  DurationNs uncertainty = 0;
  for (const RankClock& c : clocks) uncertainty = std::max(uncertainty, c.uncertainty_ns);
  const DurationNs floor = std::max(options.late_floor_ns, 3 * uncertainty);
  std::map<int64_t, size_t> index_of;
  for (size_t i = 0; i < ranks.size(); ++i) index_of[ranks[i]->rank] = i;

  std::vector<StragglerStats> stats(ranks.size());
  std::vector<Deltas> sums(ranks.size());
  std::vector<double> waits(ranks.size(), 0);
  std::set<int64_t> steps;
  for (size_t i = 0; i < ranks.size(); ++i) stats[i].rank = ranks[i]->rank;
  for (const MatchedCollective& m : collectives) {
    steps.insert(m.step);
    for (const CollectiveArrival& a : m.arrivals) stats[index_of[a.rank]].collectives++;
    if (m.late_vs_second_ns <= floor) continue;
    size_t late_index = 0;
    while (m.arrivals[late_index].rank != m.late_rank) ++late_index;
    size_t r = index_of[m.late_rank];
    Deltas d = DeltasAt(m, late_index);
    stats[r].late_count++;
    sums[r].step_start += d.step_start;
    sums[r].compute += d.compute;
    sums[r].input_wait += d.input_wait;
    sums[r].late += d.late;
    // Had it arrived with the second-latest rank, each other rank would have waited this much less.
    waits[r] +=
        static_cast<double>(m.late_vs_second_ns) * static_cast<double>(m.arrivals.size() - 1);
  }
  const double step_count = static_cast<double>(std::max<size_t>(1, steps.size()));
  for (size_t i = 0; i < ranks.size(); ++i) {
    StragglerStats& s = stats[i];
    if (s.collectives > 0)
      s.late_fraction = static_cast<double>(s.late_count) / static_cast<double>(s.collectives);
    if (s.late_count == 0) continue;
    double n = static_cast<double>(s.late_count);
    s.mean_late_ns = std::llround(sums[i].late / n);
    s.step_start_delta_ns = std::llround(sums[i].step_start / n);
    s.compute_delta_ns = std::llround(sums[i].compute / n);
    s.input_wait_delta_ns = std::llround(sums[i].input_wait / n);
    s.host_delta_ns =
        s.mean_late_ns - s.step_start_delta_ns - s.compute_delta_ns - s.input_wait_delta_ns;
    s.others_wait_ns_per_step = std::llround(waits[i] / step_count);
    s.cause = CauseOf(s);
    std::vector<const RankSummary*> peers;
    for (size_t j = 0; j < ranks.size(); ++j) {
      if (j != i) peers.push_back(ranks[j]);
    }
    CompareKernels(*ranks[i], peers, s);
  }
  std::stable_sort(stats.begin(), stats.end(),
                   [](const StragglerStats& a, const StragglerStats& b) {
                     return a.late_count != b.late_count ? a.late_count > b.late_count
                                                         : a.mean_late_ns > b.mean_late_ns;
                   });
  return stats;
}

}  // namespace gpuwhy
