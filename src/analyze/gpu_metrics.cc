#include "analyze/gpu_metrics.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analyze/gpu_metrics_join.h"
#include "model/gpu_metric_bins.h"

namespace gpuwhy {
namespace {

using Series = std::map<std::string_view, const GpuMetricBins*>;  // metric id -> bins

std::optional<double> MeanOf(const Series& s, std::string_view metric, Interval w) {
  auto it = s.find(metric);
  if (it == s.end()) return std::nullopt;
  auto [mean, covered] = it->second->MeanOver(w.start, w.end);
  if (covered == 0) return std::nullopt;
  return mean;
}

GpuMetricMeans MeansOver(const Series& s, Interval w) {
  GpuMetricMeans m;
  m.sm_active_pct = MeanOf(s, gpu_metric::kSmActive, w);
  m.sm_issue_pct = MeanOf(s, gpu_metric::kSmIssue, w);
  m.sm_occupancy_pct = MeanOf(s, gpu_metric::kSmOccupancy, w);
  m.tensor_active_pct = MeanOf(s, gpu_metric::kTensorActive, w);
  m.gr_active_pct = MeanOf(s, gpu_metric::kGrActive, w);
  std::optional<double> read = MeanOf(s, gpu_metric::kDramReadBw, w);
  std::optional<double> write = MeanOf(s, gpu_metric::kDramWriteBw, w);
  if (read || write) m.dram_bw_pct = std::min(100.0, read.value_or(0) + write.value_or(0));
  if (!m.dram_bw_pct) m.dram_bw_pct = MeanOf(s, gpu_metric::kDramActive, w);
  auto coverage = s.find(gpu_metric::kSmActive);
  if (coverage == s.end()) coverage = s.find(gpu_metric::kGrActive);
  if (coverage != s.end() && w.end > w.start) {
    m.coverage_pct = 100.0 *
                     static_cast<double>(coverage->second->MeanOver(w.start, w.end).second) /
                     static_cast<double>(w.end - w.start);
  }
  return m;
}

// Mean of the devices that have each number.
GpuMetricMeans MeanOfDevices(const std::vector<GpuMetricMeans>& all) {
  GpuMetricMeans out;
  auto average = [&](std::optional<double> GpuMetricMeans::*field) {
    double sum = 0;
    int n = 0;
    for (const GpuMetricMeans& m : all) {
      if (!(m.*field)) continue;
      sum += *(m.*field);
      ++n;
    }
    if (n > 0) out.*field = sum / n;
  };
  average(&GpuMetricMeans::sm_active_pct);
  average(&GpuMetricMeans::sm_issue_pct);
  average(&GpuMetricMeans::sm_occupancy_pct);
  average(&GpuMetricMeans::tensor_active_pct);
  average(&GpuMetricMeans::dram_bw_pct);
  average(&GpuMetricMeans::gr_active_pct);
  for (const GpuMetricMeans& m : all) out.coverage_pct += m.coverage_pct / all.size();
  return out;
}

void Emit(const GpuMetricMeans& m, MetricScope scope, MetricSet& metrics) {
  const std::pair<const MetricDecl*, std::optional<double>> values[] = {
      {&metric::kGpuMetricsSmActivePct, m.sm_active_pct},
      {&metric::kGpuMetricsSmIssuePct, m.sm_issue_pct},
      {&metric::kGpuMetricsSmOccupancyPct, m.sm_occupancy_pct},
      {&metric::kGpuMetricsTensorActivePct, m.tensor_active_pct},
      {&metric::kGpuMetricsDramBwPct, m.dram_bw_pct},
      {&metric::kGpuMetricsGrActivePct, m.gr_active_pct}};
  for (const auto& [decl, value] : values) {
    if (value) metrics.Add(*decl, scope, *value);
  }
}

}  // namespace

GpuMetricsResult ComputeGpuMetrics(const AnalysisInput& input, const UtilizationResult& util,
                                   MetricSet& metrics) {
  GpuMetricsResult result;
  result.window = util.window;
  std::vector<GpuMetricBins> bins = ReadGpuMetricBins(input.trace);
  if (!bins.empty()) {
    result.source = std::string(kGpuMetricsSource) + " (sampled)";
    result.source_label = kGpuMetricsSource;
    for (const MetricSeriesSet& log : input.options.metric_logs) {
      if (log.FindAll(gpu_metric::kSmActive).empty()) continue;
      result.not_applicable.push_back(fmt::format(
          "GPU metrics: {} not joined: the export's own GPU_METRICS are used", log.path));
    }
  } else {
    JoinedGpuMetrics joined = JoinMetricLogs(input.trace, util.window, input.options.metric_logs);
    result.not_applicable = std::move(joined.notes);
    bins = std::move(joined.bins);
    result.source = std::move(joined.source);
    result.source_label = std::move(joined.source_label);
  }
  if (bins.empty()) {
    result.not_applicable.push_back(
        "GPU metrics: the trace has no sampled SM activity (nsys profile "
        "--gpu-metrics-devices=all records it, or give a DCGM log with timestamps beside the "
        "trace: dcgm-exporter series from Prometheus' /federate, DCGM field CSVs with TimeStamp)");
    return result;
  }
  result.bin_ns = bins.front().bin_ns;
  std::map<int32_t, Series> by_device;
  for (const GpuMetricBins& b : bins) by_device[b.device][b.metric] = &b;
  std::vector<GpuMetricMeans> device_means;
  for (const auto& [device, series] : by_device) {
    GpuMetricMeans m = MeansOver(series, util.window);
    if (m.coverage_pct <= 0) continue;
    result.per_device.push_back({device, m});
    device_means.push_back(m);
    Emit(m, MetricScope::Device(device), metrics);
    metrics.Add(metric::kGpuMetricsCoveragePct, MetricScope::Device(device), m.coverage_pct);
  }
  if (result.per_device.empty()) {
    result.not_applicable.push_back("GPU metrics: no sample falls inside the analysed steps");
    return result;
  }
  result.valid = true;
  result.rank = MeanOfDevices(device_means);
  Emit(result.rank, MetricScope::Rank(), metrics);
  metrics.Add(metric::kGpuMetricsCoveragePct, MetricScope::Rank(), result.rank.coverage_pct);
  for (const StepUtilization& step : util.per_step) {
    std::vector<GpuMetricMeans> step_means;
    for (const DeviceGpuMetrics& d : result.per_device) {
      GpuMetricMeans m = MeansOver(by_device[d.device], step.window);
      if (m.coverage_pct > 0) step_means.push_back(m);
    }
    if (step_means.empty()) continue;
    StepGpuMetrics s{step.step, MeanOfDevices(step_means)};
    Emit(s.means, MetricScope::Step(step.step), metrics);
    result.per_step.push_back(std::move(s));
  }
  return result;
}

}  // namespace gpuwhy
