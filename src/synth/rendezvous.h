// Couples the ranks of a synthetic job at their collectives, as NCCL does: every rank's
// kernel of one collective ends together, a transfer time after the last rank arrived. Each
// rank is simulated on its own thread and blocks here until all ranks reached the collective.
// Times passed in are true (clock-aligned) times. Used by `synth --slow-rank`.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "base/time.h"

namespace gpuwhy {

// What the generator knows about the slow rank's lateness, for the ground truth.
struct LatenessTruth {
  int64_t collectives = 0;
  int64_t late_count = 0;  // the slow rank arrived last
  double sum_late_ns = 0;  // sum of (its arrival - median arrival of the others)
  double sum_wait_ns =
      0;  // sum over collectives of the others' wait for it beyond the second-latest
};

class CollectiveRendezvous {
 public:
  CollectiveRendezvous(int ranks, int slow_rank);

  // Blocks until every rank still in the job has arrived at this collective; returns the
  // true end time: last arrival + the longest transfer any rank asked for.
  TimeNs Arrive(int rank, TimeNs arrival, DurationNs transfer_ns);
  // A rank that stops (an error) no longer holds the others back.
  void Leave();
  LatenessTruth truth() const;

 private:
  void CompleteRound();  // with mutex_ held

  mutable std::mutex mutex_;
  std::condition_variable round_done_;
  int expected_;
  int slow_rank_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<std::pair<int, TimeNs>> arrivals_;
  DurationNs max_transfer_ = 0;
  TimeNs result_ = 0;
  LatenessTruth truth_;
};

}  // namespace gpuwhy
