// Fixed-capacity ring buffers, one per series, shared by the sampler thread (writer) and the
// recorder or live view (readers). A ring that fills before it is drained drops its oldest
// samples and counts them, so memory stays bounded however long a run lasts.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "model/metric_series.h"

namespace gpuwhy {

class SampleStore {
 public:
  explicit SampleStore(size_t capacity_per_series = 4096) : capacity_(capacity_per_series) {}

  // Writer side (the sampler thread). One short lock per sample.
  void Add(const SeriesKey& key, std::string_view unit, TimeNs t, double v,
           std::string_view label = "");

  // Moves every sample added since the last drain into |out| (appending), plus the count of
  // samples dropped because a ring was full.
  void DrainInto(MetricSeriesSet& out);
  // The last |n| samples of every series, without draining (the live view).
  MetricSeriesSet Latest(size_t n) const;
  int64_t dropped() const;
  size_t capacity() const { return capacity_; }

 private:
  struct Ring {
    std::string unit;
    std::string label;
    std::vector<TimeNs> time;
    std::vector<double> value;
    size_t head = 0;  // next write position
    size_t size = 0;  // valid samples
    size_t undrained = 0;
  };
  void Push(Ring& ring, TimeNs t, double v);

  size_t capacity_;
  mutable std::mutex mu_;
  std::map<SeriesKey, Ring> rings_;
  int64_t dropped_ = 0;
};

}  // namespace gpuwhy
