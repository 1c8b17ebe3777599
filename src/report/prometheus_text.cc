#include "base/bytes.h"
#include "report/prometheus_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "analyze/signals.h"

namespace gpuwhy {
namespace {

// A gauge copied from the latest sample of a series, scaled to base units.
struct GaugeSource {
  std::string_view series;  // MetricSeries id
  std::string_view family;
  double scale;
};


constexpr GaugeSource kGpuGauges[] = {
    {"gpu.util_pct", "gpuwhy_gpu_utilization_ratio", 0.01},
    {"gpu.mem_util_pct", "gpuwhy_gpu_memory_bandwidth_utilization_ratio", 0.01},
    {"gpu.sm_active_pct", "gpuwhy_gpu_sm_active_ratio", 0.01},
    {"gpu.tensor_active_pct", "gpuwhy_gpu_tensor_active_ratio", 0.01},
    {"gpu.mem_used_mib", "gpuwhy_gpu_memory_used_bytes", kMiB},
    {"gpu.mem_total_mib", "gpuwhy_gpu_memory_total_bytes", kMiB},
    {"gpu.sm_clock_mhz", "gpuwhy_gpu_sm_clock_hertz", 1e6},
    {"gpu.sm_clock_max_mhz", "gpuwhy_gpu_sm_clock_max_hertz", 1e6},
    {"gpu.mem_clock_mhz", "gpuwhy_gpu_memory_clock_hertz", 1e6},
    {"gpu.power_w", "gpuwhy_gpu_power_watts", 1},
    {"gpu.power_limit_w", "gpuwhy_gpu_power_limit_watts", 1},
    {"gpu.temp_c", "gpuwhy_gpu_temperature_celsius", 1},
    {"gpu.temp_slowdown_c", "gpuwhy_gpu_temperature_slowdown_celsius", 1},
    {"gpu.pcie_gen", "gpuwhy_gpu_pcie_link_generation", 1},
    {"gpu.pcie_gen_max", "gpuwhy_gpu_pcie_link_generation_max", 1},
    {"gpu.pcie_width", "gpuwhy_gpu_pcie_link_width_lanes", 1},
    {"gpu.pcie_width_max", "gpuwhy_gpu_pcie_link_width_max_lanes", 1},
    {"gpu.ecc_double_bit", "gpuwhy_gpu_ecc_uncorrected_errors", 1},
    {"gpu.remapped_rows_pending", "gpuwhy_gpu_row_remap_pending", 1},
    {"gpu.persistence", "gpuwhy_gpu_persistence_mode", 1},
};

constexpr GaugeSource kHostGauges[] = {
    {"host.cpu_busy_pct", "gpuwhy_host_cpu_utilization_ratio", 0.01},
    {"host.cpu_iowait_pct", "gpuwhy_host_cpu_iowait_ratio", 0.01},
    {"host.cpu_steal_pct", "gpuwhy_host_cpu_steal_ratio", 0.01},
    {"host.cpu_count", "gpuwhy_host_cpus", 1},
    {"host.load1", "gpuwhy_host_load1", 1},
    {"host.mem_used_mib", "gpuwhy_host_memory_used_bytes", kMiB},
};

// Counters the exporter integrates from rates (bytes) or counts (events).
struct CounterSource {
  std::string_view series;
  std::string_view family;
  std::string_view label;  // the entity's label name, "" when the entity is not exported
};
constexpr CounterSource kGpuCounters[] = {
    {"gpu.pcie_tx_mbps", "gpuwhy_gpu_pcie_transmit_bytes_total", ""},
    {"gpu.pcie_rx_mbps", "gpuwhy_gpu_pcie_receive_bytes_total", ""},
    {"gpu.xid", "gpuwhy_gpu_xid_errors_total", "code"},
};
constexpr CounterSource kHostCounters[] = {
    {"host.disk_read_bps", "gpuwhy_host_disk_read_bytes_total", "device"},
    {"host.disk_write_bps", "gpuwhy_host_disk_written_bytes_total", "device"},
};

const std::vector<ExportedFamily>& Families() {
  static const std::vector<ExportedFamily> families = {
      {"gpuwhy_gpu_utilization_ratio", "gauge",
       "Share of the last sample period in which a kernel ran (NVML utilization.gpu / 100).",
       "DCGM_FI_DEV_GPU_UTIL"},
      {"gpuwhy_gpu_memory_bandwidth_utilization_ratio", "gauge",
       "Share of the last sample period in which device memory was read or written.",
       "DCGM_FI_DEV_MEM_COPY_UTIL"},
      {"gpuwhy_gpu_sm_active_ratio", "gauge",
       "Share of time at least one warp was resident on an SM, averaged over SMs (when the "
       "source records it).",
       "DCGM_FI_PROF_SM_ACTIVE"},
      {"gpuwhy_gpu_tensor_active_ratio", "gauge",
       "Share of cycles the tensor pipes were active (when the source records it).",
       "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"},
      {"gpuwhy_gpu_memory_used_bytes", "gauge", "Device memory in use.", "DCGM_FI_DEV_FB_USED"},
      {"gpuwhy_gpu_memory_total_bytes", "gauge", "Device memory capacity.", "DCGM_FI_DEV_FB_TOTAL"},
      {"gpuwhy_gpu_sm_clock_hertz", "gauge", "Current SM clock.", "DCGM_FI_DEV_SM_CLOCK"},
      {"gpuwhy_gpu_sm_clock_max_hertz", "gauge", "Maximum SM clock.", ""},
      {"gpuwhy_gpu_memory_clock_hertz", "gauge", "Current memory clock.", "DCGM_FI_DEV_MEM_CLOCK"},
      {"gpuwhy_gpu_power_watts", "gauge", "Power draw.", "DCGM_FI_DEV_POWER_USAGE"},
      {"gpuwhy_gpu_power_limit_watts", "gauge", "Enforced power limit.",
       "DCGM_FI_DEV_POWER_MGMT_LIMIT"},
      {"gpuwhy_gpu_temperature_celsius", "gauge", "GPU core temperature.", "DCGM_FI_DEV_GPU_TEMP"},
      {"gpuwhy_gpu_temperature_slowdown_celsius", "gauge",
       "Temperature at which the GPU starts slowing its clocks.", "DCGM_FI_DEV_SLOWDOWN_TEMP"},
      {"gpuwhy_gpu_throttle_active", "gauge",
       "1 while a clocks-event reason that slows a busy GPU is active, by reason.",
       "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS (bitmask)"},
      {"gpuwhy_gpu_pcie_link_generation", "gauge", "Current PCIe link generation.",
       "DCGM_FI_DEV_PCIE_LINK_GEN"},
      {"gpuwhy_gpu_pcie_link_generation_max", "gauge", "Maximum PCIe link generation.",
       "DCGM_FI_DEV_PCIE_MAX_LINK_GEN"},
      {"gpuwhy_gpu_pcie_link_width_lanes", "gauge", "Current PCIe link width.",
       "DCGM_FI_DEV_PCIE_LINK_WIDTH"},
      {"gpuwhy_gpu_pcie_link_width_max_lanes", "gauge", "Maximum PCIe link width.",
       "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH"},
      {"gpuwhy_gpu_pcie_transmit_bytes_total", "counter",
       "Bytes the GPU sent over PCIe since the exporter started (integrated from NVML "
       "throughput samples).",
       "DCGM_FI_PROF_PCIE_TX_BYTES (a rate there)"},
      {"gpuwhy_gpu_pcie_receive_bytes_total", "counter",
       "Bytes the GPU received over PCIe since the exporter started.",
       "DCGM_FI_PROF_PCIE_RX_BYTES (a rate there)"},
      {"gpuwhy_gpu_xid_errors_total", "counter",
       "Xid errors the driver reported since the exporter started, by code.",
       "DCGM_FI_DEV_XID_ERRORS (last code there)"},
      {"gpuwhy_gpu_ecc_uncorrected_errors", "gauge",
       "Uncorrected (double-bit) ECC errors the driver counts.", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"},
      {"gpuwhy_gpu_row_remap_pending", "gauge", "1 when a row remapping awaits a GPU reset.",
       "DCGM_FI_DEV_ROW_REMAP_PENDING"},
      {"gpuwhy_gpu_persistence_mode", "gauge", "1 when persistence mode is on.", ""},
      {"gpuwhy_gpu_process_memory_bytes", "gauge",
       "Device memory of a process (--per-process, largest processes only).", ""},
      {"gpuwhy_gpu_process_sm_ratio", "gauge",
       "SM share of a process over the last period (--per-process, largest only).", ""},
      {"gpuwhy_idle_ratio", "gauge",
       "Share of the exporter's window in which the GPU ran nothing (1 - mean utilization).", ""},
      {"gpuwhy_finding_active", "gauge",
       "1 for each bottleneck finding live over the exporter's window (ids: docs/findings.md).",
       ""},
      {"gpuwhy_host_cpu_utilization_ratio", "gauge", "Busy share of all host CPUs.", ""},
      {"gpuwhy_host_cpu_iowait_ratio", "gauge", "Share of host CPU time waiting for I/O.", ""},
      {"gpuwhy_host_cpu_steal_ratio", "gauge", "Share of host CPU time taken by the hypervisor.",
       ""},
      {"gpuwhy_host_cpus", "gauge", "Host CPUs.", ""},
      {"gpuwhy_host_load1", "gauge", "One-minute load average.", ""},
      {"gpuwhy_host_memory_used_bytes", "gauge", "Host memory in use (total - available).", ""},
      {"gpuwhy_host_disk_utilization_ratio", "gauge",
       "Share of time the block device had I/O in flight (busiest devices only).", ""},
      {"gpuwhy_host_disk_read_bytes_total", "counter",
       "Bytes read from the block device since the exporter started.", ""},
      {"gpuwhy_host_disk_written_bytes_total", "counter",
       "Bytes written to the block device since the exporter started.", ""},
      {"gpuwhy_host_process_cpu_ratio", "gauge",
       "CPU of a process in cores (--per-process, busiest only).", ""},
      {"gpuwhy_process_job_info", "gauge",
       "1 for each exported process a scheduler runs (--per-process): its job, Kubernetes pod, "
       "pod UID and namespace, Slurm job and step, container, from /proc/PID/cgroup and its "
       "environment. Bounded: values cut to 63 characters, at most 20 distinct label sets a "
       "scrape, further processes under job=\"_other\".",
       ""},
      {"gpuwhy_exporter_build_info", "gauge", "Always 1; the version is a label.", ""},
      {"gpuwhy_exporter_samples_total", "counter", "Sampling rounds since start.", ""},
      {"gpuwhy_exporter_refresh_duration_seconds", "gauge",
       "Time the last refresh of the served bodies took to drain the samples and diagnose them.",
       ""},
      {"gpuwhy_exporter_last_sample_timestamp_seconds", "gauge",
       "Unix time of the last sampling round.", ""},
      {"gpuwhy_exporter_sampler_cpu_ratio", "gauge",
       "CPU the sampler thread used, as a share of one core.", ""},
      {"gpuwhy_exporter_dropped_samples_total", "counter",
       "Samples dropped because a ring buffer was full.", ""},
      {"gpuwhy_exporter_nvml_available", "gauge", "1 when NVML was found and initialised.", ""},
  };
  return families;
}

// Label values escape backslash, double quote and newline (exposition format 0.0.4).
std::string EscapeLabel(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

// Collects the samples of each family so every family is written once, HELP and TYPE first.
class FamilyWriter {
 public:
  void Add(std::string_view family, std::string labels, double value) {
    auto& rows = rows_[std::string(family)];
    rows.push_back({std::move(labels), value});
  }
  std::string Finish() const {
    std::string out;
    for (const ExportedFamily& f : Families()) {
      auto it = rows_.find(std::string(f.name));
      if (it == rows_.end()) continue;
      out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
      for (const auto& [labels, value] : it->second) {
        out += labels.empty() ? fmt::format("{} {}\n", f.name, FormatValue(value))
                              : fmt::format("{}{{{}}} {}\n", f.name, labels, FormatValue(value));
      }
    }
    return out;
  }

 private:
  std::map<std::string, std::vector<std::pair<std::string, double>>> rows_;
};

std::string GpuLabels(const MetricSeriesSet& set, int32_t device) {
  const SeriesDevice* d = set.Device(device);
  return fmt::format("gpu=\"{}\",uuid=\"{}\",model=\"{}\"", device,
                     EscapeLabel(d != nullptr ? d->uuid : ""),
                     EscapeLabel(d != nullptr ? d->name : ""));
}

// The latest value of a device's series: the device-wide one ("" entity) first, else any
// other source of the same metric (sysfs for PCIe links).
std::optional<double> Latest(const MetricSeriesSet& set, std::string_view metric, int32_t device) {
  if (const MetricSeries* s = set.Find(metric, device, ""); s != nullptr && !s->empty()) {
    return s->value.back();
  }
  for (const MetricSeries* s : set.FindAll(metric, device)) {
    if (!s->empty()) return s->value.back();
  }
  return std::nullopt;
}

void WriteGpus(const LiveExport& live, FamilyWriter& w) {
  const MetricSeriesSet& set = *live.window;
  for (int32_t device : set.DeviceIndices()) {
    if (device < 0) continue;
    std::string labels = GpuLabels(set, device);
    for (const GaugeSource& g : kGpuGauges) {
      if (auto v = Latest(set, g.series, device)) w.Add(g.family, labels, *v * g.scale);
    }
    if (auto bits = Latest(set, "gpu.throttle_reasons", device)) {
      auto mask = static_cast<uint64_t>(*bits);
      for (const ThrottleReason& r : kThrottleReasons) {
        w.Add("gpuwhy_gpu_throttle_active", labels + fmt::format(",reason=\"{}\"", r.id),
              (mask & r.bit) != 0 ? 1 : 0);
      }
    }
    if (auto it = live.idle_ratio.find(device); it != live.idle_ratio.end()) {
      w.Add("gpuwhy_idle_ratio", labels, it->second);
    }
  }
}

void WriteCounters(const LiveExport& live, FamilyWriter& w) {
  const MetricSeriesSet& set = *live.window;
  for (const auto& [key, total] : live.totals) {
    for (const CounterSource& c : kGpuCounters) {
      if (key.metric != c.series || key.device < 0) continue;
      std::string labels = GpuLabels(set, key.device);
      if (!c.label.empty()) {
        // entity "code 79" -> code="79"
        std::string_view value = key.entity;
        if (auto space = value.find(' '); space != std::string_view::npos) {
          value = value.substr(space + 1);
        }
        labels += fmt::format(",{}=\"{}\"", c.label, EscapeLabel(value));
      }
      w.Add(c.family, labels, total);
    }
  }
  // Block devices: the busiest |max_disks| by bytes moved, so a machine with hundreds of
  // loop devices keeps its label count bounded.
  std::map<std::string, double> moved;
  for (const auto& [key, total] : live.totals) {
    if (key.metric == "host.disk_read_bps" || key.metric == "host.disk_write_bps") {
      moved[key.entity] += total;
    }
  }
  std::vector<std::pair<double, std::string>> busiest;
  for (const auto& [disk, bytes] : moved) busiest.push_back({bytes, disk});
  std::sort(busiest.begin(), busiest.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (busiest.size() > live.max_disks) busiest.resize(live.max_disks);
  for (const auto& [bytes, disk] : busiest) {
    std::string labels = fmt::format("device=\"{}\"", EscapeLabel(disk));
    for (const CounterSource& c : kHostCounters) {
      auto it = live.totals.find(SeriesKey{std::string(c.series), -1, disk});
      if (it != live.totals.end()) w.Add(c.family, labels, it->second);
    }
    if (const MetricSeries* s = set.Find("host.disk_util_pct", -1, disk); s && !s->empty()) {
      w.Add("gpuwhy_host_disk_utilization_ratio", labels, s->value.back() * 0.01);
    }
  }
}

// The |n| entities of |metric| with the largest latest value.
std::vector<const MetricSeries*> Largest(const MetricSeriesSet& set, std::string_view metric,
                                         size_t n) {
  std::vector<const MetricSeries*> all;
  for (const MetricSeries* s : set.FindAll(metric)) {
    if (!s->empty()) all.push_back(s);
  }
  std::sort(all.begin(), all.end(), [](const MetricSeries* a, const MetricSeries* b) {
    if (a->value.back() != b->value.back()) return a->value.back() > b->value.back();
    return a->key < b->key;
  });
  if (all.size() > n) all.resize(n);
  return all;
}

std::string_view PidOf(const MetricSeries& s) {
  std::string_view pid = s.key.entity;
  if (auto space = pid.find(' '); space != std::string_view::npos) pid = pid.substr(space + 1);
  return pid;
}

// Cut to kJobLabelMaxChars bytes, not inside a UTF-8 sequence.
std::string CutLabel(std::string_view value) {
  if (value.size() <= kJobLabelMaxChars) return std::string(value);
  size_t end = kJobLabelMaxChars;
  while (end > 0 && (static_cast<unsigned char>(value[end]) & 0xC0) == 0x80) --end;
  return std::string(value.substr(0, end));
}

// The job labels of the exported processes, bounded: each value cut, at most
// kJobLabelMaxSets distinct sets in the order the processes are exported, the rest folded
// into one overflow set.
class JobLabeler {
 public:
  explicit JobLabeler(const LiveExport& live) : live_(live) {}
  bool enabled() const { return !live_.process_jobs.empty(); }
  const ProcessJobLabels& For(std::string_view pid_text) {
    int64_t pid = std::atoll(std::string(pid_text).c_str());
    if (auto it = assigned_.find(pid); it != assigned_.end()) return it->second;
    ProcessJobLabels labels;
    if (auto it = live_.process_jobs.find(pid); it != live_.process_jobs.end()) {
      const ProcessJobLabels& full = it->second;
      labels.job = CutLabel(full.job);
      labels.pod = CutLabel(full.pod);
      labels.pod_uid = CutLabel(full.pod_uid);
      labels.pod_namespace = CutLabel(full.pod_namespace);
      labels.slurm_job = CutLabel(full.slurm_job);
      labels.slurm_step = CutLabel(full.slurm_step);
      labels.container = CutLabel(full.container);
    }
    std::string key = Key(labels);
    if (labels.job.empty()) {
      // No scheduler names it: no label set to bound.
    } else if (!sets_.contains(key) && sets_.size() >= kJobLabelMaxSets) {
      labels = ProcessJobLabels{};
      labels.job = kJobLabelOverflow;
    } else {
      sets_.insert(key);
    }
    return assigned_.emplace(pid, std::move(labels)).first->second;
  }
  const std::map<int64_t, ProcessJobLabels>& assigned() const { return assigned_; }

 private:
  static std::string Key(const ProcessJobLabels& l) {
    return fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", l.job, l.pod, l.pod_uid, l.pod_namespace,
                       l.slurm_job, l.slurm_step, l.container);
  }
  const LiveExport& live_;
  std::map<int64_t, ProcessJobLabels> assigned_;
  std::set<std::string> sets_;
};

std::string ProcessLabels(const MetricSeries& s, JobLabeler& jobs) {
  std::string_view pid = PidOf(s);
  std::string labels =
      fmt::format("pid=\"{}\",name=\"{}\"", EscapeLabel(pid), EscapeLabel(s.label));
  if (jobs.enabled()) labels += fmt::format(",job=\"{}\"", EscapeLabel(jobs.For(pid).job));
  return labels;
}

void WriteProcessJobs(const JobLabeler& jobs, FamilyWriter& w) {
  for (const auto& [pid, l] : jobs.assigned()) {
    if (l.job.empty()) continue;  // no scheduler names it: nothing to join
    w.Add("gpuwhy_process_job_info",
          fmt::format("pid=\"{}\",job=\"{}\",pod=\"{}\",pod_uid=\"{}\",namespace=\"{}\","
                      "slurm_job=\"{}\",slurm_step=\"{}\",container=\"{}\"",
                      pid, EscapeLabel(l.job), EscapeLabel(l.pod), EscapeLabel(l.pod_uid),
                      EscapeLabel(l.pod_namespace), EscapeLabel(l.slurm_job),
                      EscapeLabel(l.slurm_step), EscapeLabel(l.container)),
          1);
  }
}

void WriteProcesses(const LiveExport& live, FamilyWriter& w) {
  const MetricSeriesSet& set = *live.window;
  JobLabeler jobs(live);
  for (const MetricSeries* s : Largest(set, "gpu.process_mem_mib", live.top_processes)) {
    w.Add("gpuwhy_gpu_process_memory_bytes",
          GpuLabels(set, s->key.device) + "," + ProcessLabels(*s, jobs), s->value.back() * kMiB);
  }
  for (const MetricSeries* s : Largest(set, "gpu.process_sm_pct", live.top_processes)) {
    w.Add("gpuwhy_gpu_process_sm_ratio",
          GpuLabels(set, s->key.device) + "," + ProcessLabels(*s, jobs), s->value.back() * 0.01);
  }
  for (const MetricSeries* s : Largest(set, "proc.cpu_pct", live.top_processes)) {
    w.Add("gpuwhy_host_process_cpu_ratio", ProcessLabels(*s, jobs), s->value.back() * 0.01);
  }
  WriteProcessJobs(jobs, w);
}

void WriteHost(const LiveExport& live, FamilyWriter& w) {
  for (const GaugeSource& g : kHostGauges) {
    if (const MetricSeries* s = live.window->Find(g.series, -1, ""); s && !s->empty()) {
      w.Add(g.family, "", s->value.back() * g.scale);
    }
  }
}

void WriteFindings(const LiveExport& live, FamilyWriter& w) {
  if (live.findings == nullptr) return;
  for (const Finding& f : live.findings->findings) {
    w.Add("gpuwhy_finding_active",
          fmt::format("id=\"{}\",class=\"{}\",severity=\"{}\"", EscapeLabel(f.id),
                      BottleneckClassName(f.bottleneck_class), SeverityName(f.severity)),
          1);
  }
}

void WriteSelf(const LiveExport& live, FamilyWriter& w) {
  const ExporterSelf& s = live.self;
  w.Add("gpuwhy_exporter_build_info", fmt::format("version=\"{}\"", EscapeLabel(s.version)), 1);
  w.Add("gpuwhy_exporter_samples_total", "", static_cast<double>(s.samples));
  w.Add("gpuwhy_exporter_refresh_duration_seconds", "", s.last_refresh_seconds);
  w.Add("gpuwhy_exporter_last_sample_timestamp_seconds", "", s.last_sample_unix_seconds);
  if (s.sampler_cpu_ratio >= 0) w.Add("gpuwhy_exporter_sampler_cpu_ratio", "", s.sampler_cpu_ratio);
  w.Add("gpuwhy_exporter_dropped_samples_total", "", static_cast<double>(s.dropped_samples));
  w.Add("gpuwhy_exporter_nvml_available", "", s.nvml_available ? 1 : 0);
}

}  // namespace

const std::vector<ExportedFamily>& ExportedFamilies() { return Families(); }

std::string RenderPrometheusText(const LiveExport& live) {
  FamilyWriter w;
  if (live.window != nullptr) {
    WriteGpus(live, w);
    WriteCounters(live, w);
    WriteHost(live, w);
    if (live.per_process) WriteProcesses(live, w);
  }
  WriteFindings(live, w);
  WriteSelf(live, w);
  return w.Finish();
}

}  // namespace gpuwhy
