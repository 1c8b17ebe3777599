// What `gpuwhy serve` derives from the live samples beyond the latest values: per-GPU idle
// ratio over the recent window, and running totals (bytes from byte-rate series, events by
// code) that Prometheus needs as monotonic counters. Analyses never parse: the input is a
// MetricSeriesSet drained from the sampler.
#pragma once

#include <map>

#include "model/metric_series.h"

namespace gpuwhy {

// Per GPU with utilization samples in |window|: 1 - mean(gpu.util_pct) / 100, in [0, 1].
std::map<int32_t, double> IdleRatioByGpu(const MetricSeriesSet& window);

// Totals since the first Add. Rates are integrated with the time since the previous sample of
// the same series (the first sample of a series only starts the clock); gpu.xid samples are
// counted per code, under entity "code N".
class LiveTotals {
 public:
  void Add(const MetricSeriesSet& fresh);
  const std::map<SeriesKey, double>& totals() const { return totals_; }

 private:
  std::map<SeriesKey, TimeNs> last_time_;
  std::map<SeriesKey, double> totals_;
};

// Appends |fresh| to |window| and drops samples older than |keep_from| (series left empty
// are kept: their unit and label stay known); devices and notes of |fresh| replace those of
// |window| when it has any.
void SlideWindow(MetricSeriesSet& window, const MetricSeriesSet& fresh, TimeNs keep_from);

}  // namespace gpuwhy
