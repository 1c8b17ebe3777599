#include "synth/rendezvous.h"

#include <algorithm>

namespace gpuwhy {

CollectiveRendezvous::CollectiveRendezvous(int ranks, int slow_rank)
    : expected_(ranks), slow_rank_(slow_rank) {}

TimeNs CollectiveRendezvous::Arrive(int rank, TimeNs arrival, DurationNs transfer_ns) {
  std::unique_lock<std::mutex> lock(mutex_);
  uint64_t my_generation = generation_;
  arrivals_.push_back({rank, arrival});
  max_transfer_ = std::max(max_transfer_, transfer_ns);
  if (++arrived_ >= expected_) {
    CompleteRound();
  } else {
    round_done_.wait(lock, [&] { return generation_ != my_generation; });
  }
  return result_;
}

void CollectiveRendezvous::Leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  --expected_;
  if (arrived_ > 0 && arrived_ >= expected_) CompleteRound();
}

void CollectiveRendezvous::CompleteRound() {
  TimeNs last = 0;
  for (const auto& [rank, t] : arrivals_) last = std::max(last, t);
  result_ = last + max_transfer_;
  // Ground truth for the slow rank, measured exactly as the analysis defines it.
  auto slow = std::find_if(arrivals_.begin(), arrivals_.end(),
                           [&](const auto& a) { return a.first == slow_rank_; });
  if (slow != arrivals_.end() && arrivals_.size() > 1) {
    std::vector<TimeNs> others;
    for (const auto& [rank, t] : arrivals_) {
      if (rank != slow_rank_) others.push_back(t);
    }
    std::sort(others.begin(), others.end());
    size_t n = others.size();
    TimeNs median = n % 2 == 1 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
    truth_.collectives++;
    if (slow->second >= last) {
      truth_.late_count++;
      truth_.sum_late_ns += static_cast<double>(slow->second - median);
      truth_.sum_wait_ns +=
          static_cast<double>(slow->second - others.back()) * static_cast<double>(n);
    }
  }
  arrivals_.clear();
  arrived_ = 0;
  max_transfer_ = 0;
  ++generation_;
  round_done_.notify_all();
}

LatenessTruth CollectiveRendezvous::truth() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return truth_;
}

}  // namespace gpuwhy
