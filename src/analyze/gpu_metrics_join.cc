#include "analyze/gpu_metrics_join.h"

#include <algorithm>
#include <array>
#include <tuple>

#include <fmt/format.h>

namespace gpuwhy {
namespace {

// DCGM's profiling fields that GPU_METRICS also samples (docs/metric-series.md ids).
constexpr std::array<std::string_view, 5> kJoinedMetrics = {
    gpu_metric::kSmActive, gpu_metric::kTensorActive, gpu_metric::kGrActive,
    gpu_metric::kSmOccupancy, gpu_metric::kDramActive};

// Samples before 2001 are not wall-clock time (a log's own sample counter, a relative clock).
constexpr TimeNs kEpoch2001Ns = 978307200LL * kNsPerSec;

// The sampling period of one series: the log's nominal interval, else the median gap.
DurationNs PeriodOf(const MetricSeries& s, DurationNs nominal) {
  if (nominal > 0) return nominal;
  std::vector<DurationNs> gaps;
  for (size_t i = 1; i < s.time.size(); ++i) {
    if (s.time[i] > s.time[i - 1]) gaps.push_back(s.time[i] - s.time[i - 1]);
  }
  if (gaps.empty()) return kNsPerSec;  // one sample: DCGM's default 1 s update period
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

// DCGM averages a profiling field over the update period that ends at the sample, so a sample
// at t covers [t - period, t). Samples closer than a period are dropped (bins never overlap).
GpuMetricBins ToBins(const MetricSeries& s, DurationNs period, TimeNs base) {
  GpuMetricBins bins;
  bins.metric = s.key.metric;
  bins.device = s.key.device;
  bins.bin_ns = period;
  TimeNs next_free = INT64_MIN;
  for (size_t i = 0; i < s.time.size(); ++i) {
    const TimeNs start = s.time[i] - period - base;
    if (start < next_free) continue;
    bins.start.push_back(start);
    bins.value.push_back(std::clamp(s.value[i], 0.0, 100.0));
    next_free = start + period;
  }
  return bins;
}

// Whether some SM-activity sample of |log| falls inside the epoch window.
bool Overlaps(const MetricSeriesSet& log, TimeNs from, TimeNs to) {
  for (const MetricSeries* s : log.FindAll(gpu_metric::kSmActive)) {
    auto it = std::lower_bound(s->time.begin(), s->time.end(), from);
    if (it != s->time.end() && *it < to + PeriodOf(*s, log.nominal_interval_ns)) return true;
  }
  return false;
}

std::string LogName(const MetricSeriesSet& log) {
  return log.path.empty() ? log.source : fmt::format("{} {}", log.source, log.path);
}

}  // namespace

JoinedGpuMetrics JoinMetricLogs(const Trace& trace, Interval window,
                                std::span<const MetricSeriesSet> logs) {
  JoinedGpuMetrics out;
  for (const MetricSeriesSet& log : logs) {
    if (log.FindAll(gpu_metric::kSmActive).empty()) continue;  // no profiling fields
    const std::string name = LogName(log);
    if (!out.bins.empty()) {
      out.notes.push_back(fmt::format(
          "GPU metrics: {} not joined; the trace already has sampled SM activity from {}", name,
          out.source));
      continue;
    }
    if (!trace.metadata.base_time_ns) {
      out.notes.push_back(fmt::format(
          "GPU metrics: {} not joined: the trace carries no wall-clock base (Kineto "
          "baseTimeNanoseconds) to align samples to; judged on its own (compute.util_misleading)",
          name));
      continue;
    }
    const std::optional<std::pair<TimeNs, TimeNs>> span = log.Span();
    if (log.times_synthesized || !span || span->first < kEpoch2001Ns) {
      out.notes.push_back(fmt::format(
          "GPU metrics: {} not joined: its samples carry no wall-clock time (dcgmi dmon prints "
          "none; Prometheus' /federate of dcgm-exporter's DCGM_FI_PROF_* series does); judged "
          "on its own (compute.util_misleading)",
          name));
      continue;
    }
    const TimeNs base = *trace.metadata.base_time_ns;
    if (!Overlaps(log, window.start + base, window.end + base)) {
      out.notes.push_back(fmt::format(
          "GPU metrics: {} not joined: no SM-activity sample falls inside the trace's analysed "
          "steps (log {:.1f} s long, starting {:.1f} s from the trace's start); judged on its own",
          name, NsToMs(span->second - span->first) / 1e3,
          NsToMs(span->first - (window.start + base)) / 1e3));
      continue;
    }
    DurationNs period = 0;
    for (std::string_view metric : kJoinedMetrics) {
      for (const MetricSeries* s : log.FindAll(metric)) {
        if (s->key.device < 0 || !s->key.entity.empty() || s->empty()) continue;
        const DurationNs p = PeriodOf(*s, log.nominal_interval_ns);
        period = std::max(period, p);
        out.bins.push_back(ToBins(*s, p, base));
      }
    }
    out.source_label = log.source;
    out.source = fmt::format(
        "{} ({:.0f} ms samples, joined by wall clock; GPU index as the "
        "log numbers it)",
        name, NsToMs(period));
  }
  std::sort(out.bins.begin(), out.bins.end(), [](const GpuMetricBins& a, const GpuMetricBins& b) {
    return std::tie(a.metric, a.device) < std::tie(b.metric, b.device);
  });
  return out;
}

}  // namespace gpuwhy
