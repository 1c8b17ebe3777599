// The GPU_METRICS samples an `nsys profile --gpu-metrics-devices=all` capture would record
// for the simulated kernels, from a stated model (docs/nsys.md "Synthetic GPU metrics"): each
// kernel fills min(1, blocks / SMs) of the device while it runs; GEMM and attention kernels
// keep the tensor pipes busy, the others stream memory. One sample per 100 µs bin (nsys'
// default 10 kHz), the value the mean over that bin, rounded to a whole percent as nsys
// stores it.
#pragma once

#include <sqlite3.h>

#include <array>
#include <map>
#include <string>

#include "base/status.h"
#include "synth/event_writer.h"

namespace gpuwhy {

// The metrics written, their TARGET_INFO_GPU_METRICS metricId (the index) and name.
enum class SynthGpuMetric {
  kGrActive,
  kSmActive,
  kSmIssue,
  kTensorActive,
  kDramRead,
  kDramWrite,
  kComputeWarps,
  kCount
};
inline constexpr int kSynthGpuMetricCount = static_cast<int>(SynthGpuMetric::kCount);
std::string_view SynthGpuMetricName(SynthGpuMetric metric);  // "SM Active [Throughput %]"

// Each metric's share of a kernel's running time, in 0..1, by the model above.
std::array<double, kSynthGpuMetricCount> SynthGpuMetricLoad(const KernelSpec& spec);

class SynthGpuMetrics {
 public:
  static constexpr DurationNs kSampleNs = 100 * kNsPerUs;

  void AddKernel(const KernelSpec& spec, int device, TimeNs ts, DurationNs dur);
  // CREATE + INSERT of both tables into |db|, one sample per bin of [start, end) per device
  // that ran a kernel (idle bins read 0). Inside the caller's transaction.
  Status Write(sqlite3* db, TimeNs start, TimeNs end) const;

 private:
  using Bin = std::array<double, kSynthGpuMetricCount>;  // Σ load × overlap ns
  std::map<int, std::map<int64_t, Bin>> bins_;           // device -> bin index -> sums
};

}  // namespace gpuwhy
