// The cross-rank analysis: per-rank table and spread, clock alignment from the collectives,
// every collective matched across ranks with arrivals and waits, stragglers with a cause,
// scaling against a one-GPU baseline. Reads only RankSummary values, so it runs the same
// on traces analysed in this process and on summary files merged from many machines.
// The HTML per-rank view and the merged annotate trace read this result (docs/cross-rank.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ranks/rank_summary.h"

namespace gpuwhy {

struct CrossRankOptions {
  // Kernel ends of one collective on different ranks lie within this of each other
  // (after alignment); used to find the offset and to group kernels into collectives.
  DurationNs match_window_ns = 50 * kNsPerUs;
  // A rank is "decisively late" at a collective when it arrives this much after the
  // second-latest rank (and more than 3× the clock uncertainty).
  DurationNs late_floor_ns = 10 * kNsPerUs;
  double link_peak_gbps = 0;  // per-GPU bus bandwidth peak when known; 0: unknown
};

// One rank's row of the per-rank table (numbers from its single-rank analyses).
struct CrossRankRow {
  int64_t rank = kNoValue;
  std::string path;
  std::string device;
  int64_t steps = 0;
  double step_median_ms = 0;
  double step_mean_ms = 0;
  double kernel_pct = 0;  // step breakdown, % of step time
  double comm_pct = 0;    // communication not hidden under kernels
  double memcpy_pct = 0;
  double host_pct = 0;            // runtime + data loader + cpu exec + other
  double idle_pct = 0;            // device idle in the analysed steps
  std::string top_idle_cause;     // "input_wait", … ("" when idle is 0)
  double top_idle_cause_pct = 0;  // of step time
  double comm_exposed_ms_per_step = 0;
  std::string top_finding;  // id of the single-rank diagnosis' first finding
};

// min / median / max of one number over ranks, with the ranks at the extremes.
struct RankSpread {
  double min = 0;
  double median = 0;
  double max = 0;
  int64_t min_rank = kNoValue;
  int64_t max_rank = kNoValue;
};

// A rank's clock relative to the reference rank: aligned = own time - offset_ns.
struct RankClock {
  int64_t rank = kNoValue;
  bool aligned = false;  // false: no collective shared with the reference; offset 0 used
  DurationNs offset_ns = 0;
  DurationNs uncertainty_ns =
      0;                // robust sigma of the per-collective estimates (1.4826 MAD), >= 1 µs
  int64_t matched = 0;  // collective kernels the estimate rests on
};

struct CollectiveArrival {
  int64_t rank = kNoValue;
  TimeNs arrival = 0;      // aligned start of this rank's kernel
  TimeNs end = 0;          // aligned end
  DurationNs wait_ns = 0;  // last arrival - own arrival: time spent waiting for the others
  TimeNs step_start = 0;   // aligned start of this rank's step (0 when outside a step)
  DurationNs compute_before_ns = 0;  // from RankCollectiveTiming
  DurationNs input_wait_before_ns = 0;
};

// One collective, matched across the ranks that ran it.
struct MatchedCollective {
  int64_t step = kNoValue;
  std::string kind;
  std::string process_group;
  int64_t ordinal = 0;  // order among collectives of the same step, kind and group
  std::vector<CollectiveArrival> arrivals;  // by rank
  TimeNs first_arrival = 0;
  TimeNs last_arrival = 0;
  int64_t late_rank = kNoValue;
  DurationNs late_by_ns = 0;         // last arrival - median arrival of the other ranks
  DurationNs late_vs_second_ns = 0;  // last arrival - second-latest arrival
  DurationNs total_wait_ns = 0;      // sum of every rank's wait
  DurationNs transfer_ns = 0;        // median end - last arrival: the part that moved data
  int64_t bytes = kNoValue;
  int64_t group_size = kNoValue;
  double busbw_gbps = 0;  // bytes / transfer × nccl-tests factor; 0 when the size is unknown
};

// One rank's lateness record and, when it is late, why (all deltas: rank - median of peers,
// averaged over the collectives where it arrived decisively last).
struct StragglerStats {
  int64_t rank = kNoValue;
  int64_t collectives = 0;  // matched collectives it took part in
  int64_t late_count = 0;   // ... where it arrived decisively last
  double late_fraction = 0;
  DurationNs mean_late_ns = 0;             // arrival - median arrival of the others
  DurationNs others_wait_ns_per_step = 0;  // time the other ranks lose waiting for it
  DurationNs step_start_delta_ns = 0;
  DurationNs compute_delta_ns = 0;
  DurationNs input_wait_delta_ns = 0;
  DurationNs host_delta_ns = 0;  // the rest: host-bound or other idle before the collective
  std::string cause;  // "compute", "input_wait", "step_start", "host" ("" when never late)
  // Kernels this rank shares with its peers: its time / the peers' median time for the same
  // calls (1.0 = same speed); the slowest names by excess time.
  double same_kernels_ratio = 0;
  std::vector<std::string> slowest_kernels;
};

struct ScalingResult {
  bool present = false;
  int64_t ranks = 0;
  double single_step_ms = 0;
  double multi_step_ms = 0;  // median over ranks of the median step time
  double speedup = 0;        // ranks × single / multi (same per-GPU batch)
  double efficiency = 0;     // speedup / ranks
};

struct CrossRankResult {
  int64_t rank_count = 0;
  int64_t world_size = kNoValue;
  int64_t reference_rank = kNoValue;
  std::vector<CrossRankRow> ranks;  // by rank
  RankSpread step_time_ms;
  RankSpread comm_exposed_ms;
  std::vector<RankClock> clocks;  // by rank
  DurationNs max_skew_ns = 0;     // largest |offset|
  DurationNs max_uncertainty_ns = 0;
  std::vector<MatchedCollective> collectives;  // by first arrival
  int64_t unmatched_kernels = 0;           // communication kernels no other rank's kernel matched
  std::vector<StragglerStats> stragglers;  // every rank, most late first
  double busbw_median_gbps = 0;  // over sized collectives (transfer time after last arrival)
  double link_peak_gbps = 0;
  ScalingResult scaling;
  std::vector<std::string> warnings;  // mixed inputs: missing, duplicated, unknown ranks
  std::vector<std::string> notes;
};

// Resolves rank ids (unknown ranks get the next free id, duplicates are left out) and runs
// every cross-rank analysis. `summaries` are by value: the caller's order does not matter.
CrossRankResult AnalyzeCrossRank(std::vector<RankSummary> summaries,
                                 const CrossRankOptions& options,
                                 const RankSummary* baseline_single = nullptr);

// Pieces, exposed for tests.
std::vector<RankClock> EstimateClockOffsets(const std::vector<const RankSummary*>& ranks,
                                            const CrossRankOptions& options);
std::vector<MatchedCollective> MatchCollectives(const std::vector<const RankSummary*>& ranks,
                                                const std::vector<RankClock>& clocks,
                                                const CrossRankOptions& options,
                                                int64_t* unmatched);
std::vector<StragglerStats> FindStragglers(const std::vector<const RankSummary*>& ranks,
                                           const std::vector<RankClock>& clocks,
                                           const std::vector<MatchedCollective>& collectives,
                                           const CrossRankOptions& options);

}  // namespace gpuwhy
