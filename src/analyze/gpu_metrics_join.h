// Profiling series recorded beside a trace (DCGM: dcgmi dmon, dcgm-exporter, DCGM field CSVs,
// gpuwhy recordings) put on the trace's clock as the same bins Nsight Systems GPU_METRICS
// fills (model/gpu_metric_bins.h), so the gpu_metrics analysis and the rules that read it judge
// both sources alike. A log joins only when both sides carry wall-clock time: the trace's
// epoch base (Kineto baseTimeNanoseconds, the nsys session start) and timestamped samples.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/interval_set.h"
#include "model/gpu_metric_bins.h"
#include "model/metric_series.h"
#include "model/trace.h"

namespace gpuwhy {

struct JoinedGpuMetrics {
  std::vector<GpuMetricBins> bins;  // on the trace's clock, ordered by (metric, device)
  // What the bins came from: "dcgmi dmon dcgm.txt (1000 ms samples, joined by wall clock)".
  std::string source;
  std::string source_label;        // the log's source: "dcgm-exporter", "dcgmi dmon", ...
  std::vector<std::string> notes;  // why a log given beside the trace was not joined
};

// The first log whose SM-activity samples overlap |window| (trace clock) joins; the others,
// and every log that cannot be placed on the trace's clock, get a note saying why.
JoinedGpuMetrics JoinMetricLogs(const Trace& trace, Interval window,
                                std::span<const MetricSeriesSet> logs);

}  // namespace gpuwhy
