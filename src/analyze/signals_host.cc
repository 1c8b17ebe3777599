// Host signals: iowait and disk saturation, all-core saturation (split into the job's own and
// the rest of the machine's when the job's CPU is recorded), and the job's busiest thread, each
// judged at the moments the GPUs were under the low-utilization threshold.
#include <fmt/format.h>

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

// The busiest processes outside the job over the run, by their mean CPU: the procfs sampler
// records the top few of each second's scan of /proc (host.other_proc_cpu_pct).
std::vector<std::string> BusiestOthers(const MetricSeriesSet& set, size_t n) {
  std::vector<std::pair<double, const MetricSeries*>> by_cpu;
  for (const MetricSeries* s : set.FindAll("host.other_proc_cpu_pct")) {
    if (s->empty()) continue;
    double sum = 0;
    for (double v : s->value) sum += v;
    by_cpu.emplace_back(sum, s);
  }
  std::sort(by_cpu.begin(), by_cpu.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->key < b.second->key;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < by_cpu.size() && i < n; ++i) {
    const MetricSeries& s = *by_cpu[i].second;
    out.push_back(fmt::format("{}{} ({:.0f}% of a core while seen)", s.key.entity,
                              s.label.empty() ? "" : " " + s.label, s.Mean()));
  }
  return out;
}

// With the job's own CPU (gpuwhy run): whose were the saturated samples? The job's when its
// processes used at least job_share_pct of the busy CPU (busy % x cores), else the rest of
// the machine's: a job that sleeps beside a busy neighbour is not CPU bound.
void SplitSaturation(const MetricSeriesSet& set, const MetricSeries& busy, const SignalOptions& o,
                     HostSignals& h) {
  const MetricSeries* job = set.Find("job.cpu_pct");
  if (job == nullptr || job->empty() || h.cores <= 0 || busy.empty()) return;
  size_t by_job = 0;
  size_t by_others = 0;
  for (size_t i = 0; i < busy.size(); ++i) {
    if (busy.value[i] < o.saturated_cpu_pct - 1e-9) continue;
    const double busy_cores_pct = busy.value[i] * h.cores;  // % of one core
    const double own = ValueAt(*job, busy.time[i]).value_or(0);
    ++(own >= busy_cores_pct * o.job_share_pct / 100 ? by_job : by_others);
  }
  const auto n = static_cast<double>(busy.size());
  h.cpu_saturated_by_job_pct = 100.0 * static_cast<double>(by_job) / n;
  h.cpu_saturated_by_others_pct = 100.0 * static_cast<double>(by_others) / n;
  h.busiest_others = BusiestOthers(set, 3);
}

}  // namespace

HostSignals AnalyzeHostSignals(const MetricSeriesSet& set, const SignalOptions& o) {
  HostSignals h;
  std::vector<const MetricSeries*> gpus = set.FindAll("gpu.util_pct");
  if (const MetricSeries* count = set.Find("host.cpu_count"); count && !count->empty()) {
    // Clamped before the cast: a value from a file may be anything (NaN fails the test).
    const double cores = count->Max();
    h.cores = cores >= 1 && cores <= 1 << 20 ? static_cast<int>(cores) : 0;
  }
  const MetricSeries* busy = set.Find("host.cpu_busy_pct");
  if (busy && !busy->empty()) {
    h.samples = busy->size();
    h.cpu_busy_mean_pct = busy->Mean();
    h.cpu_saturated_pct = busy->PercentAbove(o.saturated_cpu_pct - 1e-9);
    SplitSaturation(set, *busy, o, h);
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
