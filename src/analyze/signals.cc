#include "analyze/signals.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/median.h"

namespace gpuwhy {
namespace {

// The held value of |s| at |t|; NaN when there is no series or no sample yet.
double HeldValueOrNaN(const MetricSeries* s, TimeNs t) {
  if (s == nullptr) return std::nan("");
  std::optional<double> v = ValueAt(*s, t);
  return v.has_value() ? *v : std::nan("");
}

std::optional<double> MeanOf(const MetricSeries* s) {
  if (s == nullptr || s->empty()) return std::nullopt;
  return s->Mean();
}

void Throttling(const MetricSeriesSet& set, GpuSignals& g) {
  g.throttle_pct.assign(std::size(kThrottleReasons), 0);
  if (const MetricSeries* bits = set.Find("gpu.throttle_reasons", g.device);
      bits && !bits->empty()) {
    g.throttle_recorded = true;
    for (size_t r = 0; r < std::size(kThrottleReasons); ++r) {
      size_t on = 0;
      for (double v : bits->value) {
        if (static_cast<uint64_t>(v) & kThrottleReasons[r].bit) ++on;
      }
      g.throttle_pct[r] = 100.0 * static_cast<double>(on) / static_cast<double>(bits->size());
    }
  }
  g.power_violation_pct = MeanOf(set.Find("gpu.power_violation_pct", g.device));
  if (const MetricSeries* t = set.Find("gpu.thermal_violation", g.device); t && !t->empty()) {
    g.thermal_violation_pct = t->PercentAbove(0);
  }
  const MetricSeries* clock = set.Find("gpu.sm_clock_mhz", g.device);
  const MetricSeries* max = set.Find("gpu.sm_clock_max_mhz", g.device);
  if (clock && max && !clock->empty() && max->Max() > 0) {
    g.sm_clock_vs_max_pct = 100.0 * clock->Mean() / max->Max();
  }
  if (const MetricSeries* temp = set.Find("gpu.temp_c", g.device); temp && !temp->empty()) {
    g.temp_max_c = temp->Max();
  }
}

// The mean of one process's series, nullopt when it has no numeric sample.
std::optional<double> ProcessMean(const MetricSeriesSet& set, std::string_view metric,
                                  const MetricSeries& seen) {
  const MetricSeries* s = set.Find(metric, seen.key.device, seen.key.entity);
  return MeanOf(s);
}

void Processes(const MetricSeriesSet& set, GpuSignals& g) {
  for (const MetricSeries* seen : set.FindAll("gpu.process_seen", g.device)) {
    if (seen->Max() < 1) continue;  // graphics only
    const MetricSeries* any = set.Find("gpu.util_pct", g.device);
    double samples =
        any && !any->empty() ? static_cast<double>(any->size()) : static_cast<double>(seen->size());
    GpuProcess p{seen->key.entity, seen->label, std::min(100.0, 100.0 * seen->size() / samples)};
    p.sm_mean_pct = ProcessMean(set, "gpu.process_sm_pct", *seen);
    std::optional<double> enc = ProcessMean(set, "gpu.process_enc_pct", *seen);
    std::optional<double> dec = ProcessMean(set, "gpu.process_dec_pct", *seen);
    if (enc || dec) p.media_mean_pct = std::max(enc.value_or(0), dec.value_or(0));
    if (p.sm_mean_pct) {
      g.competing_sm_sum_pct = g.competing_sm_sum_pct.value_or(0);
      if (*p.sm_mean_pct >= 1) {
        ++g.competing_processes;
        *g.competing_sm_sum_pct += *p.sm_mean_pct;
      }
    }
    g.compute_processes.push_back(std::move(p));
  }
}

// The video engines: the GPU's own enc/dec columns, else the sum over its processes.
void Media(const MetricSeriesSet& set, GpuSignals& g) {
  std::optional<double> enc = MeanOf(set.Find("gpu.enc_pct", g.device));
  std::optional<double> dec = MeanOf(set.Find("gpu.dec_pct", g.device));
  if (!enc && !dec) {
    for (const MetricSeries* seen : set.FindAll("gpu.process_seen", g.device)) {
      if (std::optional<double> e = ProcessMean(set, "gpu.process_enc_pct", *seen))
        enc = enc.value_or(0) + *e;
      if (std::optional<double> d = ProcessMean(set, "gpu.process_dec_pct", *seen))
        dec = dec.value_or(0) + *d;
    }
  }
  if (!enc && !dec) return;
  bool encoder = enc.value_or(0) >= dec.value_or(0);
  g.media_mean_pct = std::min(100.0, encoder ? enc.value_or(0) : dec.value_or(0));
  g.media_engine = encoder ? "encoder" : "decoder";
}

// NVML's link series when present, else the one read from sysfs (entity "sysfs").
const MetricSeries* LinkSeries(const MetricSeriesSet& set, std::string_view metric, int32_t d) {
  const MetricSeries* s = set.Find(metric, d);
  return s != nullptr ? s : set.Find(metric, d, "sysfs");
}

void Pcie(const MetricSeriesSet& set, const SignalOptions& o, GpuSignals& g) {
  const MetricSeries* gen = LinkSeries(set, "gpu.pcie_gen", g.device);
  const MetricSeries* width = LinkSeries(set, "gpu.pcie_width", g.device);
  const MetricSeries* gen_max = LinkSeries(set, "gpu.pcie_gen_max", g.device);
  const MetricSeries* width_max = LinkSeries(set, "gpu.pcie_width_max", g.device);
  if (gen_max && !gen_max->empty()) g.pcie_gen_max = gen_max->Max();
  if (width_max && !width_max->empty()) g.pcie_width_max = width_max->Max();
  if (gen && !gen->empty()) g.pcie_gen = gen->Max();
  if (width && !width->empty()) g.pcie_width = width->Max();
  const MetricSeries* util = set.Find("gpu.util_pct", g.device);
  const MetricSeries* base = gen ? gen : width;
  if (!base || base->empty() || !(g.pcie_gen_max || g.pcie_width_max)) return;
  size_t judged = 0, below = 0;
  double lowest_gen = 1e9, lowest_width = 1e9;
  for (size_t i = 0; i < base->size(); ++i) {
    TimeNs t = base->time[i];
    if (util) {
      std::optional<double> u = ValueAt(*util, t);
      if (u && *u < o.busy_util_pct) continue;  // idle: link power saving is normal
    }
    ++judged;
    // Plain doubles (NaN: no sample yet): GCC's -O1 flow analysis mistakes optionals built
    // in a conditional expression for uninitialised reads.
    const double cg = HeldValueOrNaN(gen, t);
    const double cw = HeldValueOrNaN(width, t);
    if (!std::isnan(cg)) lowest_gen = std::min(lowest_gen, cg);
    if (!std::isnan(cw)) lowest_width = std::min(lowest_width, cw);
    bool gen_low = !std::isnan(cg) && g.pcie_gen_max && cg < *g.pcie_gen_max;
    bool width_low = !std::isnan(cw) && g.pcie_width_max && cw < *g.pcie_width_max;
    if (gen_low || width_low) ++below;
  }
  if (judged == 0) return;
  g.pcie_downgraded_pct = 100.0 * static_cast<double>(below) / static_cast<double>(judged);
  // Report the link as it was while busy.
  if (lowest_gen < 1e9) g.pcie_gen = lowest_gen;
  if (lowest_width < 1e9) g.pcie_width = lowest_width;
}

void Memory(const MetricSeriesSet& set, GpuSignals& g) {
  const MetricSeries* used = set.Find("gpu.mem_used_mib", g.device);
  if (!used || used->empty()) return;
  g.mem_used_max_mib = used->Max();
  const MetricSeries* total = set.Find("gpu.mem_total_mib", g.device);
  const MetricSeries* free_mib = set.Find("gpu.mem_free_mib", g.device);
  if (total && !total->empty()) {
    g.mem_total_mib = total->Max();
  } else if (free_mib && !free_mib->empty()) {
    g.mem_total_mib = used->value.back() + free_mib->value.back();  // DCGM: used + free
  }
  if (g.mem_total_mib && *g.mem_total_mib > 0) {
    g.mem_used_max_pct = 100.0 * *g.mem_used_max_mib / *g.mem_total_mib;
  }
}

// MIG instances: SM or graphics-engine activity series of an instance entity; idle when every
// sample of each is 0.
void MigInstances(const MetricSeriesSet& set, GpuSignals& g) {
  std::map<std::string, std::pair<std::string, bool>> instances;  // entity -> label, active
  for (std::string_view metric : {"gpu.sm_active_pct", "gpu.gr_engine_active_pct"}) {
    for (const MetricSeries* s : set.FindAll(metric, g.device)) {
      if (s->key.entity.empty() || s->empty()) continue;
      auto& [label, active] = instances[s->key.entity];
      if (label.empty()) label = s->label;
      active = active || s->Max() > 0;
    }
  }
  g.mig_instances = instances.size();
  for (const auto& [entity, state] : instances) {
    if (state.second) continue;
    g.idle_instances.push_back(state.first.empty() ? entity : entity + " (" + state.first + ")");
  }
}

GpuSignals AnalyzeGpu(const MetricSeriesSet& set, int32_t device, const SignalOptions& o) {
  GpuSignals g;
  g.device = device;
  if (const SeriesDevice* d = set.Device(device)) g.name = d->name;
  const MetricSeries* util = set.Find("gpu.util_pct", device);
  if (util == nullptr || util->empty()) util = set.Find("gpu.gr_engine_active_pct", device);
  if (util && !util->empty()) {
    g.samples = util->size();
    g.util_mean_pct = util->Mean();
    g.util_low_pct = util->PercentBelow(o.low_util_pct);
    g.sawtooth = FindSawtooth(*util, o);
  }
  // MIG instances report SM activity per instance: the device's activity is their mean.
  std::vector<const MetricSeries*> sm = set.FindAll("gpu.sm_active_pct", device);
  if (!sm.empty()) {
    double sum = 0;
    for (const MetricSeries* s : sm) sum += s->Mean();
    g.sm_active_mean_pct = sum / static_cast<double>(sm.size());
  }
  g.tensor_active_mean_pct = MeanOf(set.Find("gpu.tensor_active_pct", device));
  Throttling(set, g);
  Processes(set, g);
  Media(set, g);
  MigInstances(set, g);
  Pcie(set, o, g);
  Memory(set, g);
  return g;
}

void EmitMetrics(SignalAnalysis& a) {
  auto add = [&](const MetricDecl& decl, MetricScope scope, const std::optional<double>& v) {
    if (v) a.metrics.Add(decl, scope, *v);
  };
  for (const GpuSignals& g : a.gpus) {
    MetricScope device = MetricScope::Device(g.device);
    add(metric::kSignalsUtilMeanPct, device, g.util_mean_pct);
    add(metric::kSignalsUtilLowPct, device, g.util_low_pct);
    add(metric::kSignalsSmActiveMeanPct, device, g.sm_active_mean_pct);
    add(metric::kSignalsTensorActiveMeanPct, device, g.tensor_active_mean_pct);
    if (g.sawtooth.found)
      a.metrics.Add(metric::kSignalsSawtoothPeriodS, device, g.sawtooth.period_s);
    add(metric::kSignalsSmClockVsMaxPct, device, g.sm_clock_vs_max_pct);
    add(metric::kSignalsPcieDowngradedPct, device, g.pcie_downgraded_pct);
    add(metric::kSignalsMemUsedMaxPct, device, g.mem_used_max_pct);
    a.metrics.Add(metric::kSignalsComputeProcesses, device,
                  static_cast<double>(g.compute_processes.size()));
    add(metric::kSignalsMediaMeanPct, device, g.media_mean_pct);
    add(metric::kSignalsCompetingSmSumPct, device, g.competing_sm_sum_pct);
    if (g.mig_instances > 0) {
      a.metrics.Add(metric::kSignalsIdleMigInstances, device,
                    static_cast<double>(g.idle_instances.size()));
    }
  }
  const HostSignals& h = a.host;
  MetricScope rank = MetricScope::Rank();
  add(metric::kSignalsCpuBusyMeanPct, rank, h.cpu_busy_mean_pct);
  add(metric::kSignalsCpuSaturatedPct, rank, h.cpu_saturated_pct);
  add(metric::kSignalsCpuSaturatedByJobPct, rank, h.cpu_saturated_by_job_pct);
  add(metric::kSignalsCpuSaturatedByOthersPct, rank, h.cpu_saturated_by_others_pct);
  add(metric::kSignalsIowaitMeanPct, rank, h.iowait_mean_pct);
  add(metric::kSignalsIoWaitGpuIdlePct, rank, h.io_wait_gpu_idle_pct);
  add(metric::kSignalsBusiestThreadMeanPct, rank, h.busiest_thread_mean_pct);
  add(metric::kSignalsThreadPinnedGpuIdlePct, rank, h.thread_pinned_gpu_idle_pct);
}

}  // namespace

std::optional<double> ValueAt(const MetricSeries& s, TimeNs t) {
  auto it = std::upper_bound(s.time.begin(), s.time.end(), t);
  if (it == s.time.begin()) return std::nullopt;
  return s.value[static_cast<size_t>(it - s.time.begin()) - 1];
}

Sawtooth FindSawtooth(const MetricSeries& util, const SignalOptions& o) {
  Sawtooth st;
  if (util.empty()) return st;
  st.low_time_pct = util.PercentBelow(o.low_util_pct);
  // A collapse starts where the series falls under the low threshold after having been
  // above the high one since the previous collapse.
  std::vector<TimeNs> starts;
  bool armed = false;
  for (size_t i = 0; i < util.size(); ++i) {
    double v = util.value[i];
    if (v >= o.high_util_pct) armed = true;
    if (armed && v < o.low_util_pct) {
      starts.push_back(util.time[i]);
      armed = false;
    }
  }
  st.collapses = static_cast<int>(starts.size());
  if (starts.size() < 3) return st;
  std::vector<double> gaps;
  for (size_t i = 1; i < starts.size(); ++i) gaps.push_back(NsToSec(starts[i] - starts[i - 1]));
  double mean = 0;
  for (double g : gaps) mean += g;
  mean /= static_cast<double>(gaps.size());
  double var = 0;
  for (double g : gaps) var += (g - mean) * (g - mean);
  st.period_cv = mean > 0 ? std::sqrt(var / static_cast<double>(gaps.size())) / mean : 0;
  st.period_s = MedianOf(gaps);
  // Regular enough to be a loop's rhythm (data loading every step), not random dips.
  st.found = st.period_cv <= 0.35;
  return st;
}

SignalAnalysis AnalyzeSignals(const MetricSeriesSet& set, const SignalOptions& options) {
  SignalAnalysis a;
  a.source = set.source;
  a.path = set.path;
  a.times_synthesized = set.times_synthesized;
  if (auto span = set.Span()) a.span_ns = span->second - span->first;
  a.interval_ns = set.nominal_interval_ns;
  for (int32_t device : set.DeviceIndices()) a.gpus.push_back(AnalyzeGpu(set, device, options));
  a.host = AnalyzeHostSignals(set, options);
  EmitMetrics(a);
  return a;
}

}  // namespace gpuwhy
