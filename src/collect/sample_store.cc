#include "collect/sample_store.h"

#include <algorithm>

namespace gpuwhy {

void SampleStore::Push(Ring& ring, TimeNs t, double v) {
  if (ring.time.empty()) {
    ring.time.resize(capacity_);
    ring.value.resize(capacity_);
  }
  ring.time[ring.head] = t;
  ring.value[ring.head] = v;
  ring.head = (ring.head + 1) % capacity_;
  ring.size = std::min(ring.size + 1, capacity_);
  if (ring.undrained == capacity_) {
    ++dropped_;  // overwrote a sample nobody read
  } else {
    ++ring.undrained;
  }
}

void SampleStore::Add(const SeriesKey& key, std::string_view unit, TimeNs t, double v,
                      std::string_view label) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = rings_.try_emplace(key);
  if (inserted) {
    it->second.unit = std::string(unit);
    it->second.label = std::string(label);
  }
  Push(it->second, t, v);
}

void SampleStore::DrainInto(MetricSeriesSet& out) {
  std::lock_guard lock(mu_);
  for (auto& [key, ring] : rings_) {
    if (ring.undrained == 0) continue;
    MetricSeries& s = out.GetOrCreate(key, ring.unit);
    if (!ring.label.empty()) s.label = ring.label;
    size_t start = (ring.head + capacity_ - ring.undrained) % capacity_;
    for (size_t i = 0; i < ring.undrained; ++i) {
      size_t at = (start + i) % capacity_;
      s.Add(ring.time[at], ring.value[at]);
    }
    ring.undrained = 0;
  }
}

MetricSeriesSet SampleStore::Latest(size_t n) const {
  std::lock_guard lock(mu_);
  MetricSeriesSet out;
  for (const auto& [key, ring] : rings_) {
    MetricSeries& s = out.GetOrCreate(key, ring.unit);
    s.label = ring.label;
    size_t k = std::min(n, ring.size);
    size_t start = (ring.head + capacity_ - k) % capacity_;
    for (size_t i = 0; i < k; ++i) {
      size_t at = (start + i) % capacity_;
      s.Add(ring.time[at], ring.value[at]);
    }
  }
  return out;
}

int64_t SampleStore::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace gpuwhy
