// Series over time for pictures: the analysed window cut into equal buckets, and per device
// the share of each bucket covered by kernels, by any GPU op, and by idle time of each cause;
// per device the allocator's allocated and reserved bytes. Bucketing here (not in a
// renderer) keeps every drawn number computed, and bounds what a report holds for any
// trace size.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/idle_gaps.h"
#include "analyze/utilization.h"

namespace gpuwhy {

inline constexpr size_t kDefaultSeriesBuckets = 240;

struct DeviceBusySeries {
  int32_t device = 0;
  std::vector<double> kernel_pct;  // per bucket: % of the bucket covered by kernels
  std::vector<double> gpu_op_pct;  // ... by kernels, memcpy and memset
  std::array<std::vector<double>, kIdleCauseCount> idle_pct;  // ... by idle time of each cause
};

struct DeviceMemorySeries {
  int32_t device = 0;
  // Per bucket: the highest value recorded in it, else the last value before it (the
  // allocator's totals hold until the next event), kNoValue before the first event.
  std::vector<int64_t> allocated_bytes;
  std::vector<int64_t> reserved_bytes;
};

struct TimeSeriesResult {
  Interval window;           // the utilization window (analysed steps)
  DurationNs bucket_ns = 0;  // every bucket but the last has this length
  size_t bucket_count = 0;
  std::vector<DeviceBusySeries> devices;   // by device id
  std::vector<DeviceMemorySeries> memory;  // devices with allocator events only
  std::vector<std::string> not_applicable;

  Interval Bucket(size_t i) const;
};

// |buckets| equal buckets over the utilization window (fewer when the window is shorter
// than |buckets| ns).
TimeSeriesResult ComputeTimeSeries(const AnalysisInput& input, const UtilizationResult& utilization,
                                   const IdleGapsResult& idle,
                                   size_t buckets = kDefaultSeriesBuckets);

}  // namespace gpuwhy
