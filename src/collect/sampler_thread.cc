#include "collect/sampler_thread.h"

#include <time.h>

#include <algorithm>

namespace gpuwhy {
namespace {

TimeNs ClockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

}  // namespace

TimeNs WallClockNs() { return ClockNs(CLOCK_REALTIME); }

SamplerThread::SamplerThread(std::vector<std::unique_ptr<Sampler>> samplers, DurationNs interval,
                             size_t ring_capacity)
    : samplers_(std::move(samplers)),
      interval_(std::max(interval, kMinSampleInterval)),
      store_(ring_capacity) {}

SamplerThread::~SamplerThread() { Stop(); }

void SamplerThread::Start() {
  for (const auto& s : samplers_) {
    Status status = s->Probe();
    if (status.ok()) {
      active_.push_back(s.get());
    } else {
      probe_notes_.push_back(std::string(s->name()) + ": " + status.message());
    }
  }
  started_ = ClockNs(CLOCK_MONOTONIC);
  thread_ = std::thread([this] { Loop(); });
}

void SamplerThread::Loop() {
  const TimeNs cpu_start = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  TimeNs next = ClockNs(CLOCK_MONOTONIC);
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    const TimeNs now = WallClockNs();
    for (Sampler* s : active_) s->Sample(now, store_);
    ++ticks_;
    cpu_ns_ = ClockNs(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
    wall_ns_ = ClockNs(CLOCK_MONOTONIC) - started_;
    lock.lock();
    // Fixed rate: the next tick is due one interval after the previous one was due, so a
    // slow sample does not shift every later one.
    next += interval_;
    const TimeNs wait = next - ClockNs(CLOCK_MONOTONIC);
    if (wait < 0) {
      next = ClockNs(CLOCK_MONOTONIC);
      continue;
    }
    wake_.wait_for(lock, std::chrono::nanoseconds(wait), [this] { return stop_; });
  }
}

void SamplerThread::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

double SamplerThread::cpu_pct() const {
  TimeNs wall = wall_ns_.load();
  return wall > 0 ? 100.0 * static_cast<double>(cpu_ns_.load()) / static_cast<double>(wall) : 0;
}

std::vector<std::string> SamplerThread::notes() const {
  std::vector<std::string> out = probe_notes_;
  for (Sampler* s : active_) {
    for (std::string& n : s->notes()) out.push_back(std::move(n));
  }
  return out;
}

std::vector<SeriesDevice> SamplerThread::devices() const {
  std::vector<SeriesDevice> out;
  for (Sampler* s : active_) {
    for (SeriesDevice& d : s->devices()) out.push_back(std::move(d));
  }
  return out;
}

void SamplerThread::DrainInto(MetricSeriesSet& out) {
  store_.DrainInto(out);
  out.nominal_interval_ns = interval_;
  out.sampler_cpu_pct = cpu_pct();
  for (const SeriesDevice& d : devices()) {
    SeriesDevice& have = out.GetOrCreateDevice(d.index);
    have = d;
  }
  out.notes = notes();
  // The count since the previous drain: run and record drain many times into one set.
  if (int64_t dropped = store_.dropped(); dropped > dropped_reported_) {
    out.problems.Add(DataProblem::kRingOverflow, "samples overwritten before they were saved",
                     dropped - dropped_reported_);
    dropped_reported_ = dropped;
  }
}

}  // namespace gpuwhy
