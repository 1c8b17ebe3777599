// Memory rules: near capacity (from allocator events), allocator churn (cudaMalloc/cudaFree
// in steady-state steps), and GEMMs too small to fill the GPU.
#include <algorithm>

#include "diagnose/rule_context.h"

namespace gpuwhy {
namespace {

constexpr const char* kNearCapacity = "memory.near_capacity";
constexpr const char* kChurn = "memory.allocator_churn";
constexpr const char* kSmallGemms = "memory.small_batch_gemms";

void NearCapacity(RuleContext& ctx) {
  const MemoryUsageResult& mem = ctx.analysis.memory;
  if (mem.devices.empty()) {
    ctx.Outcome(kNearCapacity, AssessStatus::kNotAssessed, false,
                "no allocator [memory] events (profile_memory=True was off)");
    return;
  }
  const RuleSpec& spec = *ctx.catalog.Find(kNearCapacity);
  const RuleParam* peak_pct = spec.FindParam("peak_pct");
  const DeviceMemoryStats* worst = nullptr;
  bool capacity_known = false;
  for (const DeviceMemoryStats& d : mem.devices) {
    if (d.capacity <= 0) continue;
    capacity_known = true;
    double pct = std::max(d.peak_allocated_pct, d.peak_reserved_pct);
    if (pct > peak_pct->value &&
        (worst == nullptr || pct > std::max(worst->peak_allocated_pct, worst->peak_reserved_pct))) {
      worst = &d;
    }
  }
  if (!capacity_known) {
    ctx.Outcome(kNearCapacity, AssessStatus::kPartly, false,
                "the trace does not record the device's total memory (deviceProperties)");
    return;
  }
  if (worst == nullptr) {
    ctx.Outcome(kNearCapacity, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  MetricScope scope = MetricScope::Device(worst->device);
  ctx.AddMetricEvidence(f, "memory.peak_allocated_pct", ">", peak_pct->value, peak_pct, scope);
  ctx.AddMetricEvidence(f, "memory.peak_reserved_pct", ">", peak_pct->value, peak_pct, scope);
  ctx.AddMetricEvidence(f, "memory.reserved_to_allocated", ">", 1, nullptr, scope);
  f.ranges.push_back({"memory_peak", worst->device, -1, worst->peak_allocated_ts,
                      worst->peak_allocated_ts, "peak allocated"});
  double pct = std::max(worst->peak_allocated_pct, worst->peak_reserved_pct);
  ctx.Emit(std::move(f),
           {{"peak_pct", pct},
            {"capacity_gb", static_cast<double>(worst->capacity) / 1e9},
            {"device", static_cast<double>(worst->device)}},
           pct > 97 ? Severity::kHigh : Severity::kInfo);
}

void AllocatorChurn(RuleContext& ctx) {
  const MemoryUsageResult& mem = ctx.analysis.memory;
  if (ctx.analysis.steps.steps.size() < 2) {
    ctx.Outcome(kChurn, AssessStatus::kNotAssessed, false,
                "fewer than two ProfilerSteps: no steady-state step to look at");
    return;
  }
  const RuleSpec& spec = *ctx.catalog.Find(kChurn);
  const RuleParam* min_calls = spec.FindParam("min_calls_per_step");
  if (mem.alloc_calls_per_step < min_calls->value) {
    ctx.Outcome(kChurn, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  double steady_steps = std::max<double>(1, static_cast<double>(mem.per_step.size()));
  double alloc_per_step = static_cast<double>(mem.steady_alloc_time) / steady_steps /
                          ctx.device_count;
  // Allocator calls stall the GPU only while it has nothing queued: the host_busy idle time
  // is the most they can cost, and they take it before host.cpu_bound_gaps does.
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kHostBusy, alloc_per_step));
  f.confidence = Confidence::kMedium;
  ctx.AddMetricEvidence(f, "memory.alloc_calls_per_step", ">=", min_calls->value, min_calls);
  ctx.AddMetricEvidence(f, "memory.steady_alloc_ms", ">", 0, nullptr);
  f.ranges = mem.top_alloc_calls;
  for (const EvidenceRange& r : mem.top_alloc_calls) {
    if (std::find(f.top_events.begin(), f.top_events.end(), r.label) == f.top_events.end()) {
      f.top_events.push_back(r.label);
    }
  }
  ctx.Emit(std::move(f), {{"calls", mem.alloc_calls_per_step},
                          {"alloc_ms", NsToMs(static_cast<DurationNs>(alloc_per_step))}});
}

void SmallGemms(RuleContext& ctx) {
  const BusyStats& b = ctx.busy;
  if (b.gemm_conv_ns == 0) {
    ctx.Outcome(kSmallGemms, AssessStatus::kAssessed, false);
    return;
  }
  if (!b.grids_known) {
    ctx.Outcome(kSmallGemms, AssessStatus::kNotAssessed, false,
                "kernel grids or the device's SM count are not in the trace");
    return;
  }
  const RuleSpec& spec = *ctx.catalog.Find(kSmallGemms);
  const RuleParam* min_share = spec.FindParam("min_gemm_share_pct");
  const RuleParam* min_pct = spec.FindParam("min_step_pct");
  double share = 100.0 * static_cast<double>(b.underfilled_gemm_ns) / b.gemm_conv_ns;
  double per_step = ctx.PerStep(b.underfilled_saving_ns);
  if (share < min_share->value || ctx.PctOfStep(per_step) < min_pct->value) {
    ctx.Outcome(kSmallGemms, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(per_step);
  f.confidence = Confidence::kLow;  // an upper bound: a bigger batch adds work too
  RuleContext::AddEvidence(f, "diagnose.underfilled_gemm_share_pct", share, unit::kPercent, ">=",
                           min_share->value, min_share);
  RuleContext::AddEvidence(f, "diagnose.underfilled_saving_step_pct", ctx.PctOfStep(per_step),
                           unit::kPercent, ">=", min_pct->value, min_pct);
  f.top_events = b.top_underfilled_names;
  ctx.Emit(std::move(f), {{"share", share}});
}

}  // namespace

void EvaluateMemoryRules(RuleContext& ctx) {
  NearCapacity(ctx);
  AllocatorChurn(ctx);
  SmallGemms(ctx);
}

}  // namespace gpuwhy
