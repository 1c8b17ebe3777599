// Renders the live state of one machine in the Prometheus text exposition format (version
// 0.0.4) for `gpuwhy serve`: per-GPU and host gauges from the latest samples, counters the
// exporter integrates, the live findings and the idle ratio. Renderers only render: every
// number arrives computed in a LiveExport. Metric names and their dcgm-exporter
// counterparts: docs/serve.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnose.h"
#include "model/metric_series.h"

namespace gpuwhy {

// What the exporter measured about itself.
struct ExporterSelf {
  std::string version;
  int64_t samples = 0;              // sampling rounds since start
  double last_refresh_seconds = 0;  // drain + diagnose of the last refresh
  double last_sample_unix_seconds = 0;
  double sampler_cpu_ratio = -1;  // CPU of the sampler thread / one core (< 0: unknown)
  int64_t dropped_samples = 0;    // ring-buffer overflows
  bool nvml_available = false;
};

// The job a process works for as its scheduler names it (collect/job_identity.h), values at
// full length: the renderer bounds them (kJobLabelMaxChars, kJobLabelMaxSets).
struct ProcessJobLabels {
  std::string job;      // one short name: "NAMESPACE/POD", "pod UID", "slurm 42.0", ...
  std::string pod;      // pod name ("" when only the UID is known)
  std::string pod_uid;  // joins kube-state-metrics' kube_pod_info{uid}
  std::string pod_namespace;
  std::string slurm_job;  // job id
  std::string slurm_step;
  std::string container;  // "RUNTIME://ID"
};
// Each job label value is cut to this many characters (the Kubernetes label value limit)...
inline constexpr size_t kJobLabelMaxChars = 63;
// ...and one scrape exports at most this many distinct job label sets; further processes are
// exported under job="_other" with the other job labels empty.
inline constexpr size_t kJobLabelMaxSets = 20;
inline constexpr std::string_view kJobLabelOverflow = "_other";

struct LiveExport {
  // The recent window of samples; the latest sample of each series is exported as a gauge.
  const MetricSeriesSet* window = nullptr;
  // Running totals since the exporter started, by series: bytes from byte-rate series,
  // counts of events (Xid by code: entity "code 79"). Exported as *_total counters.
  std::map<SeriesKey, double> totals;
  // Per GPU: share of the window the GPU did no work (1 - mean utilization).
  std::map<int32_t, double> idle_ratio;
  const Diagnosis* findings = nullptr;  // live findings over the window (may be null)
  ExporterSelf self;
  // Per-process series (GPU memory and SM share per pid, CPU per process) are opt-in and
  // capped to the |top_processes| largest, so label cardinality stays bounded.
  bool per_process = false;
  size_t top_processes = 5;
  // With per_process: the job of each process, by pid; the per-process series then carry a
  // job label and gpuwhy_process_job_info carries the rest. Empty: no job labels.
  std::map<int64_t, ProcessJobLabels> process_jobs;
  size_t max_disks = 16;  // block devices exported, busiest first
};

std::string RenderPrometheusText(const LiveExport& live);

// One exported family: name, type and help; the list the dashboard and rules are checked
// against (tests) and docs/serve.md documents.
struct ExportedFamily {
  std::string_view name;
  std::string_view type;  // "gauge" | "counter"
  std::string_view help;
  std::string_view dcgm;  // the dcgm-exporter field it corresponds to, "" when none
};
const std::vector<ExportedFamily>& ExportedFamilies();

}  // namespace gpuwhy
