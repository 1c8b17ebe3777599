#include "model/gpu_metric_bins.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace gpuwhy {

std::pair<double, DurationNs> GpuMetricBins::MeanOver(TimeNs from, TimeNs to) const {
  double weighted = 0;
  DurationNs covered = 0;
  // Bins start in order, so the first that may overlap is the one before the first start >= from.
  auto it = std::lower_bound(start.begin(), start.end(), from - bin_ns + 1);
  for (size_t i = static_cast<size_t>(it - start.begin()); i < start.size(); ++i) {
    if (start[i] >= to) break;
    DurationNs overlap = std::min(start[i] + bin_ns, to) - std::max(start[i], from);
    if (overlap <= 0) continue;
    weighted += value[i] * static_cast<double>(overlap);
    covered += overlap;
  }
  return {covered > 0 ? weighted / static_cast<double>(covered) : 0.0, covered};
}

std::vector<GpuMetricBins> ReadGpuMetricBins(const Trace& trace) {
  DurationNs bin_ns = kGpuMetricBinNs;
  if (auto it = trace.metadata.extra.find(std::string(kGpuMetricsBinKey));
      it != trace.metadata.extra.end()) {
    int64_t parsed = 0;
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (ec == std::errc() && parsed > 0) bin_ns = parsed;
  }
  std::map<std::pair<std::string, int32_t>, GpuMetricBins> series;
  for (const CounterTable::Row& row : trace.counters.rows) {
    std::string_view name = trace.Str(row.name);
    if (name.substr(0, kGpuMetricCounterPrefix.size()) != kGpuMetricCounterPrefix) continue;
    std::string metric(name.substr(kGpuMetricCounterPrefix.size()));
    auto device = static_cast<int32_t>(row.pid);
    auto [it, inserted] = series.try_emplace({metric, device});
    if (inserted) {
      it->second.metric = metric;
      it->second.device = device;
      it->second.bin_ns = bin_ns;
    }
    it->second.start.push_back(row.ts);
    it->second.value.push_back(row.value);
  }
  std::vector<GpuMetricBins> out;
  for (auto& entry : series) {
    // A reference, not a structured binding: clang before 16 (the fuzz build's clang-14)
    // cannot capture a binding in a lambda.
    GpuMetricBins& bins = entry.second;
    if (!std::is_sorted(bins.start.begin(), bins.start.end())) {  // before Finalize()
      std::vector<size_t> order(bins.start.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      const std::vector<TimeNs>& start = bins.start;
      std::stable_sort(order.begin(), order.end(),
                       [&start](size_t a, size_t b) { return start[a] < start[b]; });
      GpuMetricBins sorted = bins;
      for (size_t i = 0; i < order.size(); ++i) {
        sorted.start[i] = bins.start[order[i]];
        sorted.value[i] = bins.value[order[i]];
      }
      bins = std::move(sorted);
    }
    out.push_back(std::move(bins));
  }
  return out;
}

}  // namespace gpuwhy
