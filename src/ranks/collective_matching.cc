// Groups the ranks' communication kernels into collectives: within one (step, kind, group),
// kernels sorted by aligned end are grouped while their ends stay within the tolerance of
// the group's first end and no rank appears twice. Then arrivals, waits, the late rank and
// the bus bandwidth of each matched collective.
#include <algorithm>
#include <map>
#include <tuple>

#include "analyze/communication.h"
#include "ranks/cross_rank.h"
#include "base/median.h"

namespace gpuwhy {
namespace {

struct AlignedKernel {
  size_t rank_index = 0;
  const RankCollectiveTiming* timing = nullptr;
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs step_start = 0;
};

using CollectiveKey = std::tuple<int64_t, std::string, std::string>;

MatchedCollective Describe(const CollectiveKey& key, int64_t ordinal,
                           const std::vector<AlignedKernel>& group,
                           const std::vector<const RankSummary*>& ranks) {
  MatchedCollective m;
  std::tie(m.step, m.kind, m.process_group) = key;
  m.ordinal = ordinal;
  std::vector<TimeNs> arrivals;
  std::vector<TimeNs> ends;
  for (const AlignedKernel& k : group) {
    CollectiveArrival a;
    a.rank = ranks[k.rank_index]->rank;
    a.arrival = k.start;
    a.end = k.end;
    a.step_start = k.step_start;
    a.compute_before_ns = k.timing->compute_before_ns;
    a.input_wait_before_ns = k.timing->input_wait_before_ns;
    m.arrivals.push_back(a);
    arrivals.push_back(k.start);
    ends.push_back(k.end);
    if (m.bytes == kNoValue) m.bytes = k.timing->bytes;
    if (m.group_size == kNoValue) m.group_size = k.timing->group_size;
  }
  std::sort(m.arrivals.begin(), m.arrivals.end(),
            [](const CollectiveArrival& a, const CollectiveArrival& b) { return a.rank < b.rank; });
  std::sort(arrivals.begin(), arrivals.end());
  m.first_arrival = arrivals.front();
  m.last_arrival = arrivals.back();
  for (CollectiveArrival& a : m.arrivals) {
    a.wait_ns = m.last_arrival - a.arrival;
    m.total_wait_ns += a.wait_ns;
    if (a.arrival == m.last_arrival && m.late_rank == kNoValue) m.late_rank = a.rank;
  }
  std::vector<TimeNs> others(arrivals.begin(), arrivals.end() - 1);
  m.late_by_ns = m.last_arrival - MedianOf(others);
  m.late_vs_second_ns = m.last_arrival - others.back();
  m.transfer_ns = std::max<DurationNs>(0, MedianOf(ends) - m.last_arrival);
  int64_t n = m.group_size > 0 ? m.group_size : static_cast<int64_t>(group.size());
  double factor = BusBandwidthFactor(m.kind, n);
  if (m.bytes > 0 && m.transfer_ns > 0 && factor > 0) {
    m.busbw_gbps =
        static_cast<double>(m.bytes) / static_cast<double>(m.transfer_ns) * factor;  // B/ns = GB/s
  }
  return m;
}

}  // namespace

std::vector<MatchedCollective> MatchCollectives(const std::vector<const RankSummary*>& ranks,
                                                const std::vector<RankClock>& clocks,
                                                const CrossRankOptions& options,
                                                int64_t* unmatched) {
  std::map<CollectiveKey, std::vector<AlignedKernel>> by_key;
  DurationNs tolerance = options.match_window_ns;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (!clocks[i].aligned) continue;
    tolerance = std::max(tolerance, 4 * clocks[i].uncertainty_ns);
    // A summary without step positions (written before them) falls back to the number, which
    // is right unless the capture repeats step numbers.
    std::map<int64_t, TimeNs> step_starts;
    for (const RankStepTiming& s : ranks[i]->steps) step_starts.emplace(s.number, s.start);
    const std::vector<RankStepTiming>& steps = ranks[i]->steps;
    DurationNs offset = clocks[i].offset_ns;
    for (const RankCollectiveTiming& c : ranks[i]->collectives) {
      TimeNs step_start = 0;
      if (c.step_index >= 0 && c.step_index < static_cast<int64_t>(steps.size())) {
        step_start = steps[static_cast<size_t>(c.step_index)].start - offset;
      } else if (auto step = step_starts.find(c.step); step != step_starts.end()) {
        step_start = step->second - offset;
      }
      by_key[{c.step, c.kind, c.process_group}].push_back(
          {i, &c, c.start - offset, c.end - offset, step_start});
    }
  }
  std::vector<MatchedCollective> out;
  int64_t lonely = 0;
  for (auto& entry : by_key) {
    // Not a structured binding: clang before 16 (the fuzz build's) cannot capture one.
    const auto& key = entry.first;
    auto& kernels = entry.second;
    std::sort(kernels.begin(), kernels.end(), [](const AlignedKernel& a, const AlignedKernel& b) {
      return a.end != b.end ? a.end < b.end : a.rank_index < b.rank_index;
    });
    int64_t ordinal = 0;
    std::vector<AlignedKernel> group;
    std::vector<bool> in_group(ranks.size(), false);
    auto flush = [&] {
      if (group.size() >= 2) {
        out.push_back(Describe(key, ordinal++, group, ranks));
      } else {
        lonely += static_cast<int64_t>(group.size());
      }
      for (const AlignedKernel& k : group) in_group[k.rank_index] = false;
      group.clear();
    };
    for (const AlignedKernel& k : kernels) {
      if (!group.empty() && (k.end - group.front().end > tolerance || in_group[k.rank_index]))
        flush();
      group.push_back(k);
      in_group[k.rank_index] = true;
    }
    flush();
  }
  std::sort(out.begin(), out.end(), [](const MatchedCollective& a, const MatchedCollective& b) {
    return a.first_arrival < b.first_arrival;
  });
  if (unmatched != nullptr) *unmatched = lonely;
  return out;
}

}  // namespace gpuwhy
