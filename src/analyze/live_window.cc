#include "analyze/live_window.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

namespace gpuwhy {
namespace {

// Byte-rate series and the factor to bytes per second.
struct RateSeries {
  std::string_view metric;
  double to_bytes_per_s;
};
constexpr RateSeries kRates[] = {
    {"gpu.pcie_tx_mbps", 1e6},
    {"gpu.pcie_rx_mbps", 1e6},
    {"host.disk_read_bps", 1},
    {"host.disk_write_bps", 1},
};

}  // namespace

std::map<int32_t, double> IdleRatioByGpu(const MetricSeriesSet& window) {
  std::map<int32_t, double> out;
  for (const MetricSeries* s : window.FindAll("gpu.util_pct")) {
    if (s->key.device < 0 || !s->key.entity.empty() || s->empty()) continue;
    double busy = std::clamp(s->Mean() / 100.0, 0.0, 1.0);
    out[s->key.device] = 1.0 - busy;
  }
  return out;
}

void LiveTotals::Add(const MetricSeriesSet& fresh) {
  for (const RateSeries& rate : kRates) {
    for (const MetricSeries* s : fresh.FindAll(rate.metric)) {
      auto last = last_time_.find(s->key);
      double& total = totals_[s->key];
      for (size_t i = 0; i < s->size(); ++i) {
        TimeNs t = s->time[i];
        if (last != last_time_.end() && t > last->second && std::isfinite(s->value[i]) &&
            s->value[i] > 0) {
          total += s->value[i] * rate.to_bytes_per_s * static_cast<double>(t - last->second) * 1e-9;
        }
        last = last_time_.insert_or_assign(s->key, t).first;
      }
    }
  }
  for (const MetricSeries* s : fresh.FindAll("gpu.xid")) {
    for (double code : s->value) {
      SeriesKey key{"gpu.xid", s->key.device, "code " + std::to_string(static_cast<int64_t>(code))};
      totals_[key] += 1;
    }
  }
}

void SlideWindow(MetricSeriesSet& window, const MetricSeriesSet& fresh, TimeNs keep_from) {
  for (const auto& [key, series] : fresh.all()) {
    MetricSeries& into = window.GetOrCreate(key, series.unit);
    if (!series.label.empty()) into.label = series.label;
    into.time.insert(into.time.end(), series.time.begin(), series.time.end());
    into.value.insert(into.value.end(), series.value.begin(), series.value.end());
  }
  std::vector<SeriesKey> keys;
  for (const auto& [key, series] : window.all()) keys.push_back(key);
  for (const SeriesKey& key : keys) {
    MetricSeries& s = window.GetOrCreate(key, "");
    auto first_kept = std::lower_bound(s.time.begin(), s.time.end(), keep_from);
    auto drop = first_kept - s.time.begin();
    s.time.erase(s.time.begin(), first_kept);
    s.value.erase(s.value.begin(), s.value.begin() + drop);
  }
  if (!fresh.devices.empty()) window.devices = fresh.devices;
  if (!fresh.notes.empty()) window.notes = fresh.notes;
  if (fresh.sampler_cpu_pct >= 0) window.sampler_cpu_pct = fresh.sampler_cpu_pct;
  window.nominal_interval_ns = fresh.nominal_interval_ns;
  window.source = fresh.source.empty() ? window.source : fresh.source;
}

}  // namespace gpuwhy
