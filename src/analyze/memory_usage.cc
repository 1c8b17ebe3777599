#include "analyze/memory_usage.h"

#include <algorithm>
#include <map>

#include "analyze/runtime_calls.h"
#include "analyze/step_breakdown.h"
#include "base/percent.h"

namespace gpuwhy {
namespace {

void CollectPeaks(const Trace& trace, MemoryUsageResult& r) {
  std::map<int32_t, DeviceMemoryStats> by_device;
  for (const MemoryEventTable::Row& e : trace.memory_events.rows) {
    if (e.device_type <= 0) continue;  // 0 is host memory; -1 unknown
    DeviceMemoryStats& d = by_device[e.device_id];
    d.device = e.device_id;
    d.device_type = e.device_type;
    ++d.events;
    if (e.total_allocated > d.peak_allocated) {
      d.peak_allocated = e.total_allocated;
      d.peak_allocated_ts = e.ts;
    }
    d.peak_reserved = std::max(d.peak_reserved, e.total_reserved);
    if (e.total_allocated >= 0 && e.total_reserved >= 0) {
      d.max_unused_reserved = std::max(d.max_unused_reserved, e.total_reserved - e.total_allocated);
    }
  }
  for (auto& [id, d] : by_device) {
    if (const DeviceTable::Row* row = trace.devices.Find(id)) d.capacity = row->total_memory_bytes;
    if (d.capacity > 0) {
      d.peak_allocated_pct = PercentOf(d.peak_allocated, d.capacity);
      d.peak_reserved_pct = PercentOf(d.peak_reserved, d.capacity);
    }
    if (d.peak_allocated > 0) {
      d.reserved_to_allocated =
          static_cast<double>(d.peak_reserved) / static_cast<double>(d.peak_allocated);
    }
    r.devices.push_back(d);
  }
}

void CollectChurn(const AnalysisInput& input, MemoryUsageResult& r) {
  const Trace& trace = input.trace;
  const StepTable& steps = trace.steps;
  // Every step after the first (its allocations are the job's first) except the tail steps the
  // step extents leave out (cut short, or run on into the profiler's flush).
  StepExtents scratch;
  const std::vector<int64_t>& excluded = SharedStepExtents(input, scratch).excluded;
  std::vector<int64_t> slot(steps.size(), -1);  // step index -> index into r.per_step
  for (size_t s = 1; s < steps.size(); ++s) {
    if (std::find(excluded.begin(), excluded.end(), steps.rows[s].number) != excluded.end())
      continue;
    slot[s] = static_cast<int64_t>(r.per_step.size());
    r.per_step.push_back({steps.rows[s].number, 0, 0, 0});
  }
  std::vector<RuntimeCallKind> kinds = ClassifyRuntimeCalls(trace);
  const CpuSliceTable& c = trace.cpu_slices;
  std::vector<size_t> calls;
  for (size_t i = 0; i < c.size(); ++i) {
    if (kinds[i] != RuntimeCallKind::kAlloc && kinds[i] != RuntimeCallKind::kFree) continue;
    int64_t step = StepIndexAt(steps, c.start[i]);
    // Outside steps, the first step, or a tail step left out.
    if (step < 1 || slot[static_cast<size_t>(step)] < 0) continue;
    AllocStepCount& count = r.per_step[static_cast<size_t>(slot[static_cast<size_t>(step)])];
    (kinds[i] == RuntimeCallKind::kAlloc ? count.alloc_calls : count.free_calls) += 1;
    count.time += c.end[i] - c.start[i];
    calls.push_back(i);
  }
  for (const AllocStepCount& s : r.per_step) {
    r.steady_alloc_calls += s.alloc_calls;
    r.steady_free_calls += s.free_calls;
    r.steady_alloc_time += s.time;
  }
  if (!r.per_step.empty()) {
    r.alloc_calls_per_step = static_cast<double>(r.steady_alloc_calls + r.steady_free_calls) /
                             static_cast<double>(r.per_step.size());
  }
  std::sort(calls.begin(), calls.end(), [&c](size_t a, size_t b) {
    DurationNs da = c.end[a] - c.start[a], db = c.end[b] - c.start[b];
    return da != db ? da > db : a < b;
  });
  if (calls.size() > input.options.top_n) calls.resize(input.options.top_n);
  for (size_t i : calls)
    r.top_alloc_calls.push_back(
        {"alloc", -1, -1, c.start[i], c.end[i], std::string(trace.Str(c.name[i]))});
}

void EmitMetrics(const MemoryUsageResult& r, MetricSet& m) {
  for (const DeviceMemoryStats& d : r.devices) {
    MetricScope scope = MetricScope::Device(d.device);
    m.Add(metric::kMemoryPeakAllocatedBytes, scope, static_cast<double>(d.peak_allocated));
    m.Add(metric::kMemoryPeakReservedBytes, scope, static_cast<double>(d.peak_reserved));
    m.Add(metric::kMemoryMaxUnusedReservedBytes, scope, static_cast<double>(d.max_unused_reserved));
    m.Add(metric::kMemoryReservedToAllocated, scope, d.reserved_to_allocated);
    if (d.capacity > 0) {
      m.Add(metric::kMemoryCapacityBytes, scope, static_cast<double>(d.capacity));
      m.Add(metric::kMemoryPeakAllocatedPct, scope, d.peak_allocated_pct);
      m.Add(metric::kMemoryPeakReservedPct, scope, d.peak_reserved_pct);
    }
  }
  if (r.per_step.empty()) return;
  MetricScope rank = MetricScope::Rank();
  m.Add(metric::kMemorySteadyAllocCalls, rank, static_cast<double>(r.steady_alloc_calls));
  m.Add(metric::kMemorySteadyFreeCalls, rank, static_cast<double>(r.steady_free_calls));
  m.Add(metric::kMemorySteadyAllocMs, rank, NsToMs(r.steady_alloc_time));
  m.Add(metric::kMemoryAllocCallsPerStep, rank, r.alloc_calls_per_step);
  for (const AllocStepCount& s : r.per_step) {
    m.Add(metric::kMemoryAllocCalls, MetricScope::Step(s.step),
          static_cast<double>(s.alloc_calls + s.free_calls));
  }
}

}  // namespace

MemoryUsageResult ComputeMemoryUsage(const AnalysisInput& input, MetricSet& metrics) {
  MemoryUsageResult r;
  CollectPeaks(input.trace, r);
  if (r.devices.empty()) {
    r.not_applicable.push_back(
        "memory peaks: no device [memory] events (capture with "
        "torch.profiler.profile(profile_memory=True))");
  } else if (std::none_of(r.devices.begin(), r.devices.end(),
                          [](const DeviceMemoryStats& d) { return d.capacity > 0; })) {
    r.not_applicable.push_back(
        "memory vs capacity: the trace does not record the device's total memory");
  }
  if (input.trace.steps.synthesized || input.trace.steps.size() < 2) {
    r.not_applicable.push_back(
        "allocator churn: needs at least two ProfilerSteps (the first one is warm-up)");
  } else {
    CollectChurn(input, r);
  }
  EmitMetrics(r, metrics);
  return r;
}

}  // namespace gpuwhy
