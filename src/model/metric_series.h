// MetricSeries: timestamped samples of one device or host metric (docs/metric-series.md).
// Every source of live metrics fills the same set: the samplers of `gpuwhy run`/`record`,
// recordings, `nvidia-smi dmon`/`pmon`/`--query-gpu` logs and dcgm-exporter text. Metric ids
// and units are documented in docs/metric-series.md; analyses read them by id.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "model/data_problems.h"

namespace gpuwhy {

// Which series: a metric id, the GPU it belongs to (-1: the host) and an entity inside it
// ("" for the whole device or host, "cpu3", "pid 4242", "tid 4243", "sda", "eth0", a MIG
// instance "gi 3").
struct SeriesKey {
  std::string metric;  // "gpu.util_pct"
  int32_t device = -1;
  std::string entity;
  auto operator<=>(const SeriesKey&) const = default;
};

struct MetricSeries {
  SeriesKey key;
  std::string unit;   // "%", "MHz", "W", "C", "MiB", "bytes/s", "bitmask", "count", "gen", "lanes"
  std::string label;  // human label of the entity when it has one (a process name)
  std::vector<TimeNs> time;  // sample times, non-decreasing
  std::vector<double> value;

  void Add(TimeNs t, double v) {
    time.push_back(t);
    value.push_back(v);
  }
  size_t size() const { return time.size(); }
  bool empty() const { return time.empty(); }
  double Mean() const;
  double Max() const;
  double Min() const;
  // Share (0..100) of samples whose value satisfies below ? v < x : v > x.
  double PercentBelow(double x) const;
  double PercentAbove(double x) const;
};

// A device the series name (NVML index order is PCI order; join by UUID or PCI bus id).
struct SeriesDevice {
  int32_t index = -1;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string uuid;        // "GPU-..."
  std::string pci_bus_id;  // "00000000:17:00.0"
};

class MetricSeriesSet {
 public:
  std::string source;  // "nvidia-smi dmon", "nvidia-smi pmon", "nvidia-smi --query-gpu",
                       // "dcgm-exporter", "gpuwhy recording", "live"
  std::string path;    // file it came from, when it did
  // Samples were not timestamped (dmon without -o T): times are sample index x interval.
  bool times_synthesized = false;
  DurationNs nominal_interval_ns = 0;  // the sampling interval, when known
  std::vector<SeriesDevice> devices;
  // What the importer or sampler could not use ("line 17: expected 18 columns, got 12").
  DataProblems problems;
  std::vector<std::string> notes;  // what could not be sampled and why ("NVML: not found")
  // CPU the sampler itself used, % of one core (live recordings only; < 0: unknown).
  double sampler_cpu_pct = -1;

  MetricSeries& GetOrCreate(const SeriesKey& key, std::string_view unit);
  void Add(const SeriesKey& key, std::string_view unit, TimeNs t, double v) {
    GetOrCreate(key, unit).Add(t, v);
  }
  const MetricSeries* Find(std::string_view metric, int32_t device = -1,
                           std::string_view entity = "") const;
  // Every series of |metric| (all devices and entities), in key order.
  std::vector<const MetricSeries*> FindAll(std::string_view metric) const;
  // Every series of |metric| on |device|.
  std::vector<const MetricSeries*> FindAll(std::string_view metric, int32_t device) const;
  // Device indices that have at least one series, ascending.
  std::vector<int32_t> DeviceIndices() const;
  const SeriesDevice* Device(int32_t index) const;
  SeriesDevice& GetOrCreateDevice(int32_t index);
  // Earliest and latest sample time over all series; nullopt when empty.
  std::optional<std::pair<TimeNs, TimeNs>> Span() const;
  const std::map<SeriesKey, MetricSeries>& all() const { return series_; }
  bool empty() const { return series_.empty(); }
  size_t sample_count() const;

 private:
  std::map<SeriesKey, MetricSeries> series_;
};

}  // namespace gpuwhy
