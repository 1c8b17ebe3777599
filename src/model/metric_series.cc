#include "model/metric_series.h"

#include <algorithm>
#include <numeric>

namespace gpuwhy {

double MetricSeries::Mean() const {
  if (value.empty()) return 0;
  return std::accumulate(value.begin(), value.end(), 0.0) / static_cast<double>(value.size());
}

double MetricSeries::Max() const {
  return value.empty() ? 0 : *std::max_element(value.begin(), value.end());
}

double MetricSeries::Min() const {
  return value.empty() ? 0 : *std::min_element(value.begin(), value.end());
}

double MetricSeries::PercentBelow(double x) const {
  if (value.empty()) return 0;
  auto n = std::count_if(value.begin(), value.end(), [x](double v) { return v < x; });
  return 100.0 * static_cast<double>(n) / static_cast<double>(value.size());
}

double MetricSeries::PercentAbove(double x) const {
  if (value.empty()) return 0;
  auto n = std::count_if(value.begin(), value.end(), [x](double v) { return v > x; });
  return 100.0 * static_cast<double>(n) / static_cast<double>(value.size());
}

MetricSeries& MetricSeriesSet::GetOrCreate(const SeriesKey& key, std::string_view unit) {
  auto [it, inserted] = series_.try_emplace(key);
  if (inserted) {
    it->second.key = key;
    it->second.unit = std::string(unit);
  }
  return it->second;
}

const MetricSeries* MetricSeriesSet::Find(std::string_view metric, int32_t device,
                                          std::string_view entity) const {
  auto it = series_.find(SeriesKey{std::string(metric), device, std::string(entity)});
  return it == series_.end() ? nullptr : &it->second;
}

std::vector<const MetricSeries*> MetricSeriesSet::FindAll(std::string_view metric) const {
  std::vector<const MetricSeries*> out;
  for (const auto& [key, series] : series_) {
    if (key.metric == metric) out.push_back(&series);
  }
  return out;
}

std::vector<const MetricSeries*> MetricSeriesSet::FindAll(std::string_view metric,
                                                          int32_t device) const {
  std::vector<const MetricSeries*> out;
  for (const auto& [key, series] : series_) {
    if (key.metric == metric && key.device == device) out.push_back(&series);
  }
  return out;
}

std::vector<int32_t> MetricSeriesSet::DeviceIndices() const {
  std::vector<int32_t> out;
  for (const auto& [key, series] : series_) {
    if (key.device >= 0) out.push_back(key.device);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const SeriesDevice* MetricSeriesSet::Device(int32_t index) const {
  for (const SeriesDevice& d : devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

SeriesDevice& MetricSeriesSet::GetOrCreateDevice(int32_t index) {
  for (SeriesDevice& d : devices) {
    if (d.index == index) return d;
  }
  devices.push_back(SeriesDevice{index, "", "", ""});
  return devices.back();
}

std::optional<std::pair<TimeNs, TimeNs>> MetricSeriesSet::Span() const {
  std::optional<std::pair<TimeNs, TimeNs>> span;
  for (const auto& [key, series] : series_) {
    if (series.empty()) continue;
    TimeNs lo = series.time.front(), hi = series.time.back();
    if (!span) {
      span = {lo, hi};
      continue;
    }
    span->first = std::min(span->first, lo);
    span->second = std::max(span->second, hi);
  }
  return span;
}

size_t MetricSeriesSet::sample_count() const {
  size_t n = 0;
  for (const auto& [key, series] : series_) n += series.size();
  return n;
}

}  // namespace gpuwhy
