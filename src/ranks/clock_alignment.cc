// Clock offsets from the collectives: a collective's kernel ends at nearly the same true
// moment on every rank of its group, so for rank r and the reference rank the differences
// of kernel ends of the same step and kind cluster tightly around r's clock offset, while
// pairs of different collectives scatter. The densest window of differences is the offset.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "base/median.h"
#include "ranks/cross_rank.h"

namespace gpuwhy {
namespace {

using CollectiveKey = std::tuple<int64_t, std::string, std::string>;  // step, kind, group

// Only pairs whose ordinals are this close are compared when a key has many kernels, so
// the work stays linear in the kernels while shifted sequences (one extra kernel) still pair.
constexpr size_t kOrdinalReach = 16;

std::map<CollectiveKey, std::vector<TimeNs>> EndsByKey(const RankSummary& rank) {
  std::map<CollectiveKey, std::vector<TimeNs>> out;
  for (const RankCollectiveTiming& c : rank.collectives) {
    out[{c.step, c.kind, c.process_group}].push_back(c.end);
  }
  return out;
}

std::vector<DurationNs> EndDifferences(
    const std::map<CollectiveKey, std::vector<TimeNs>>& mine,
    const std::map<CollectiveKey, std::vector<TimeNs>>& reference) {
  std::vector<DurationNs> diffs;
  for (const auto& [key, ends] : mine) {
    auto ref = reference.find(key);
    if (ref == reference.end()) continue;
    for (size_t i = 0; i < ends.size(); ++i) {
      size_t lo = i > kOrdinalReach ? i - kOrdinalReach : 0;
      size_t hi = std::min(ref->second.size(), i + kOrdinalReach + 1);
      for (size_t j = lo; j < hi; ++j) diffs.push_back(ends[i] - ref->second[j]);
    }
  }
  std::sort(diffs.begin(), diffs.end());
  return diffs;
}

// The offset as the median of the densest `window` of sorted differences.
RankClock OffsetFromDifferences(const std::vector<DurationNs>& diffs, DurationNs window) {
  RankClock clock;
  if (diffs.empty()) return clock;
  size_t best_lo = 0;
  size_t best_count = 0;
  for (size_t lo = 0, hi = 0; lo < diffs.size(); ++lo) {
    while (hi < diffs.size() && diffs[hi] - diffs[lo] <= window) ++hi;
    if (hi - lo > best_count) {
      best_count = hi - lo;
      best_lo = lo;
    }
  }
  std::vector<DurationNs> cluster(diffs.begin() + static_cast<ptrdiff_t>(best_lo),
                                  diffs.begin() + static_cast<ptrdiff_t>(best_lo + best_count));
  clock.aligned = true;
  clock.offset_ns = MedianOf(cluster);
  std::vector<DurationNs> deviations;
  for (DurationNs d : cluster)
    deviations.push_back(d > clock.offset_ns ? d - clock.offset_ns : clock.offset_ns - d);
  double sigma = 1.4826 * static_cast<double>(MedianOf(deviations));
  clock.uncertainty_ns =
      std::max<DurationNs>(kNsPerUs, static_cast<DurationNs>(std::llround(sigma)));
  clock.matched = static_cast<int64_t>(best_count);
  return clock;
}

}  // namespace

std::vector<RankClock> EstimateClockOffsets(const std::vector<const RankSummary*>& ranks,
                                            const CrossRankOptions& options) {
  std::vector<RankClock> clocks(ranks.size());
  // The reference: the lowest rank that ran any collective.
  size_t ref = ranks.size();
  for (size_t i = 0; i < ranks.size(); ++i) {
    clocks[i].rank = ranks[i]->rank;
    if (ref == ranks.size() && !ranks[i]->collectives.empty()) ref = i;
  }
  if (ref == ranks.size()) return clocks;
  std::map<CollectiveKey, std::vector<TimeNs>> reference = EndsByKey(*ranks[ref]);
  clocks[ref].aligned = true;
  clocks[ref].uncertainty_ns = 0;
  clocks[ref].matched = static_cast<int64_t>(ranks[ref]->collectives.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i == ref) continue;
    RankClock clock = OffsetFromDifferences(EndDifferences(EndsByKey(*ranks[i]), reference),
                                            options.match_window_ns);
    clock.rank = ranks[i]->rank;
    clocks[i] = clock;
  }
  return clocks;
}

}  // namespace gpuwhy
