// Host signals: iowait and disk saturation, all-core saturation, and the job's busiest
// thread, each judged at the moments the GPUs were under the low-utilization threshold.
#include <algorithm>

#include "analyze/signals.h"

namespace gpuwhy {
namespace {

// Mean GPU utilization over devices at |t|; nullopt when no GPU series covers t.
std::optional<double> GpuUtilAt(const std::vector<const MetricSeries*>& gpus, TimeNs t) {
  double sum = 0;
  int n = 0;
  for (const MetricSeries* s : gpus) {
    if (std::optional<double> v = ValueAt(*s, t)) {
      sum += *v;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// Share of |base|'s samples where |hot| holds and the GPUs are low (or, without GPU series,
// where |hot| holds).
template <typename Hot>
double ShareWhileGpuLow(const MetricSeries& base, const std::vector<const MetricSeries*>& gpus,
                        double low_util, Hot hot) {
  if (base.empty()) return 0;
  size_t n = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    if (!hot(i)) continue;
    std::optional<double> gpu = GpuUtilAt(gpus, base.time[i]);
    if (!gpus.empty() && (!gpu || *gpu >= low_util)) continue;
    ++n;
  }
  return 100.0 * static_cast<double>(n) / static_cast<double>(base.size());
}

}  // namespace

HostSignals AnalyzeHostSignals(const MetricSeriesSet& set, const SignalOptions& o) {
  HostSignals h;
  std::vector<const MetricSeries*> gpus = set.FindAll("gpu.util_pct");
  if (const MetricSeries* count = set.Find("host.cpu_count"); count && !count->empty()) {
    h.cores = static_cast<int>(count->Max());
  }
  const MetricSeries* busy = set.Find("host.cpu_busy_pct");
  if (busy && !busy->empty()) {
    h.samples = busy->size();
    h.cpu_busy_mean_pct = busy->Mean();
    h.cpu_saturated_pct = busy->PercentAbove(o.saturated_cpu_pct - 1e-9);
  }
  const MetricSeries* iowait = set.Find("host.cpu_iowait_pct");
  std::vector<const MetricSeries*> disks = set.FindAll("host.disk_util_pct");
  for (const MetricSeries* d : disks) {
    h.disk_util_max_pct = std::max(h.disk_util_max_pct.value_or(0), d->Max());
  }
  if (iowait && !iowait->empty()) {
    h.iowait_mean_pct = iowait->Mean();
    h.io_wait_gpu_idle_pct = ShareWhileGpuLow(*iowait, gpus, o.low_util_pct, [&](size_t i) {
      if (iowait->value[i] >= o.iowait_pct) return true;
      for (const MetricSeries* d : disks) {
        if (ValueAt(*d, iowait->time[i]).value_or(0) >= o.disk_busy_pct) return true;
      }
      return false;
    });
  }
  // The busiest thread of the job by mean CPU.
  const MetricSeries* top = nullptr;
  for (const MetricSeries* t : set.FindAll("thread.cpu_pct")) {
    if (t->empty()) continue;
    if (top == nullptr || t->Mean() > top->Mean()) top = t;
  }
  if (top != nullptr) {
    h.busiest_thread = top->key.entity + (top->label.empty() ? "" : " (" + top->label + ")");
    h.busiest_thread_mean_pct = top->Mean();
    h.thread_pinned_gpu_idle_pct = ShareWhileGpuLow(
        *top, gpus, o.low_util_pct, [&](size_t i) { return top->value[i] >= o.pinned_thread_pct; });
  }
  return h;
}

}  // namespace gpuwhy
