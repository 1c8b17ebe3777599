// The sampler thread: probes every sampler once, then samples them all at a fixed rate
// (default 10 Hz, at most 100 Hz) into one SampleStore of ring buffers. Its own CPU time is
// measured (CLOCK_THREAD_CPUTIME_ID) and reported as % of one core.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "collect/sampler.h"

namespace gpuwhy {

inline constexpr DurationNs kDefaultSampleInterval = 100 * kNsPerMs;  // 10 Hz
inline constexpr DurationNs kMinSampleInterval = 10 * kNsPerMs;       // 100 Hz

class SamplerThread {
 public:
  SamplerThread(std::vector<std::unique_ptr<Sampler>> samplers, DurationNs interval,
                size_t ring_capacity = 4096);
  ~SamplerThread();
  SamplerThread(const SamplerThread&) = delete;
  SamplerThread& operator=(const SamplerThread&) = delete;

  // Probes (failures become notes), takes the first sample, then runs until Stop.
  void Start();
  void Stop();
  SampleStore& store() { return store_; }
  DurationNs interval() const { return interval_; }
  // The thread's CPU time over its wall time so far, in % of one core.
  double cpu_pct() const;
  int64_t ticks() const { return ticks_.load(); }
  std::vector<std::string> notes() const;
  std::vector<SeriesDevice> devices() const;
  // Moves what was sampled into |out|, with devices, notes and the sampler's own cost. Safe
  // while the thread runs (devices and notes are fixed once probed), as often as wanted.
  void DrainInto(MetricSeriesSet& out);

 private:
  void Loop();

  std::vector<std::unique_ptr<Sampler>> samplers_;
  std::vector<Sampler*> active_;
  std::vector<std::string> probe_notes_;
  DurationNs interval_;
  SampleStore store_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<int64_t> ticks_{0};
  std::atomic<int64_t> cpu_ns_{0};
  TimeNs started_ = 0;
  std::atomic<TimeNs> wall_ns_{0};
  int64_t dropped_reported_ = 0;  // ring overflows already drained
};

// CLOCK_REALTIME in ns: the time base of live samples (comparable with trace timestamps).
TimeNs WallClockNs();

}  // namespace gpuwhy
