// Memory: peak allocated and reserved per device from the allocator's [memory] events
// (profile_memory=True) against the device capacity, the reserved/allocated gap
// (fragmentation), and allocator churn: cudaMalloc/cudaFree calls in steady-state steps.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"

namespace gpuwhy {

struct DeviceMemoryStats {
  int32_t device = 0;
  int32_t device_type = 1;  // c10::DeviceType: 1 CUDA, 6 HIP, ...
  int64_t events = 0;
  int64_t peak_allocated = 0;  // bytes, max "Total Allocated"
  TimeNs peak_allocated_ts = 0;
  int64_t peak_reserved = 0;        // bytes, max "Total Reserved"
  int64_t max_unused_reserved = 0;  // max over events of reserved - allocated
  int64_t capacity = kNoValue;      // device total memory, when the trace records it
  double peak_allocated_pct = 0;    // of capacity; 0 when unknown
  double peak_reserved_pct = 0;
  double reserved_to_allocated = 0;  // peak reserved / peak allocated
};

struct AllocStepCount {
  int64_t step = 0;
  int64_t alloc_calls = 0;
  int64_t free_calls = 0;
  DurationNs time = 0;
};

struct MemoryUsageResult {
  std::vector<DeviceMemoryStats> devices;  // by device
  // Allocator churn: runtime alloc/free calls in every step but the first.
  std::vector<AllocStepCount> per_step;  // steady-state steps only
  int64_t steady_alloc_calls = 0;
  int64_t steady_free_calls = 0;
  DurationNs steady_alloc_time = 0;
  double alloc_calls_per_step = 0;             // (alloc + free) per steady-state step
  std::vector<EvidenceRange> top_alloc_calls;  // the longest steady-state alloc/free calls
  std::vector<std::string> not_applicable;
};

MemoryUsageResult ComputeMemoryUsage(const AnalysisInput& input, MetricSet& metrics);

// What ComputeMemoryUsage emits (docs/metrics/memory.md).
namespace metric {
inline constexpr MetricDecl kMemoryPeakAllocatedBytes{
    "memory.peak_allocated_bytes", unit::kBytes, kDevice,
    "max Total Allocated of the allocator's [memory] events"};
inline constexpr MetricDecl kMemoryPeakReservedBytes{"memory.peak_reserved_bytes", unit::kBytes,
                                                     kDevice, "max Total Reserved"};
inline constexpr MetricDecl kMemoryMaxUnusedReservedBytes{
    "memory.max_unused_reserved_bytes", unit::kBytes, kDevice,
    "max over events of reserved - allocated"};
inline constexpr MetricDecl kMemoryReservedToAllocated{"memory.reserved_to_allocated", unit::kRatio,
                                                       kDevice, "peak reserved / peak allocated"};
inline constexpr MetricDecl kMemoryCapacityBytes{
    "memory.capacity_bytes", unit::kBytes, kDevice,
    "device total memory (only when the trace records it)"};
inline constexpr MetricDecl kMemoryPeakAllocatedPct{"memory.peak_allocated_pct", unit::kPercent,
                                                    kDevice, "peak allocated / capacity"};
inline constexpr MetricDecl kMemoryPeakReservedPct{"memory.peak_reserved_pct", unit::kPercent,
                                                   kDevice, "peak reserved / capacity"};
inline constexpr MetricDecl kMemorySteadyAllocCalls{
    "memory.steady_alloc_calls", unit::kCount, kRank,
    "allocator alloc calls starting in a step other than the first"};
inline constexpr MetricDecl kMemorySteadyFreeCalls{
    "memory.steady_free_calls", unit::kCount, kRank,
    "allocator free calls starting in a step other than the first"};
inline constexpr MetricDecl kMemorySteadyAllocMs{
    "memory.steady_alloc_ms", unit::kMs, kRank,
    "total duration of those steady-state allocator calls"};
inline constexpr MetricDecl kMemoryAllocCallsPerStep{"memory.alloc_calls_per_step", unit::kCount,
                                                     kRank,
                                                     "(alloc + free calls) / steady-state steps"};
inline constexpr MetricDecl kMemoryAllocCalls{"memory.alloc_calls", unit::kCount, kStep,
                                              "alloc + free calls in that steady-state step"};
inline constexpr const MetricDecl* kMemoryUsageMetrics[] = {
    &kMemoryPeakAllocatedBytes,  &kMemoryPeakReservedBytes, &kMemoryMaxUnusedReservedBytes,
    &kMemoryReservedToAllocated, &kMemoryCapacityBytes,     &kMemoryPeakAllocatedPct,
    &kMemoryPeakReservedPct,     &kMemorySteadyAllocCalls,  &kMemorySteadyFreeCalls,
    &kMemorySteadyAllocMs,       &kMemoryAllocCallsPerStep, &kMemoryAllocCalls};
}  // namespace metric

}  // namespace gpuwhy
