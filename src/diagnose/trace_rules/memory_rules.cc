// Memory rules: near capacity (from allocator events), allocator churn (cudaMalloc/cudaFree
// in steady-state steps), and GEMMs too small to fill the GPU.
#include <algorithm>
#include <array>

#include "diagnose/capture.h"
#include "diagnose/shared_params.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kNearCapacity = "memory.near_capacity";
constexpr const char* kChurn = "memory.allocator_churn";
constexpr const char* kSmallGemms = "memory.small_batch_gemms";

constexpr ParamRef kChurnMinCallsPerStep{kChurn, "min_calls_per_step"};
constexpr ParamRef kSmallGemmsMinGemmSharePct{kSmallGemms, "min_gemm_share_pct"};
constexpr ParamRef kSmallGemmsMinStepPct{kSmallGemms, "min_step_pct"};
constexpr std::array<const ParamRef*, 4> kMemoryRulesParams = {&kNearCapacityPeakPct, &kChurnMinCallsPerStep,
                                                    &kSmallGemmsMinGemmSharePct,
                                                    &kSmallGemmsMinStepPct};

void NearCapacity(RuleContext& ctx) {
  const MemoryUsageResult& mem = ctx.analysis.memory;
  if (mem.devices.empty()) {
    ctx.Outcome(kNearCapacity, AssessStatus::kNotAssessed, false,
                "no allocator [memory] events (profile_memory=True was off)");
    return;
  }
  const RuleSpec& spec = ctx.catalog.Spec(kNearCapacity);
  const RuleParam& peak_pct = ctx.catalog.Get(kNearCapacityPeakPct);
  const DeviceMemoryStats* worst = nullptr;
  bool capacity_known = false;
  for (const DeviceMemoryStats& d : mem.devices) {
    if (d.capacity <= 0) continue;
    capacity_known = true;
    double pct = std::max(d.peak_allocated_pct, d.peak_reserved_pct);
    if (pct > peak_pct.value &&
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
  ctx.AddMetricEvidence(f, "memory.peak_allocated_pct", ">", peak_pct.value, &peak_pct, scope);
  ctx.AddMetricEvidence(f, "memory.peak_reserved_pct", ">", peak_pct.value, &peak_pct, scope);
  ctx.AddMetricEvidence(f, "memory.reserved_to_allocated", ">", 1, nullptr, scope);
  f.ranges.push_back({"memory_peak", worst->device, -1, worst->peak_allocated_ts,
                      worst->peak_allocated_ts, "peak allocated"});
  double pct = std::max(worst->peak_allocated_pct, worst->peak_reserved_pct);
  // An inference engine reserves its pool up front (vLLM's gpu_memory_utilization, SGLang's
  // mem_fraction_static: the KV cache): a full device is its design, not pressure, which shows
  // as preempted or recomputed requests instead. Said at low severity, as what it cannot tell.
  const bool inference = ctx.analysis.job.kind == JobKind::kInference;
  if (inference) f.confidence = Confidence::kLow;
  ctx.Emit(std::move(f),
           {{"peak_pct", pct},
            {"capacity_gb", static_cast<double>(worst->capacity) / 1e9},
            {"device", static_cast<double>(worst->device)}},
           pct > 97 && !inference ? Severity::kHigh : Severity::kInfo);
  if (inference) {
    Finding& out = ctx.out.findings.back();
    out.severity = Severity::kLow;
    out.title +=
        ": an inference job (a serving engine reserves its KV-cache pool up front, "
        "so a full device is its design; pressure would show as preempted requests)";
  }
}

void AllocatorChurn(RuleContext& ctx) {
  const MemoryUsageResult& mem = ctx.analysis.memory;
  if (ctx.analysis.steps.steps.size() < 2) {
    ctx.Outcome(kChurn, AssessStatus::kNotAssessed, false,
                "fewer than two ProfilerSteps: no steady-state step to look at");
    return;
  }
  const RuleSpec& spec = ctx.catalog.Spec(kChurn);
  const RuleParam& min_calls = ctx.catalog.Get(kChurnMinCallsPerStep);
  if (mem.alloc_calls_per_step < min_calls.value) {
    ctx.Outcome(kChurn, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  double steady_steps = std::max<double>(1, static_cast<double>(mem.per_step.size()));
  double alloc_per_step =
      static_cast<double>(mem.steady_alloc_time) / steady_steps / ctx.device_count;
  // Allocator calls stall the GPU only while it has nothing queued. They run on the thread
  // that launches, so the GPU idles under them as host_busy or, when the next kernel is not
  // launched yet, as launch_bound: they take both (up to their own time per step) before
  // host.cpu_bound_gaps and launch.launch_bound do. An upper bound: not every call sits in a
  // gap.
  double claimed = ctx.ClaimIdle(IdleCause::kHostBusy, alloc_per_step);
  claimed += ctx.ClaimIdle(IdleCause::kLaunchBound, alloc_per_step - claimed);
  f.recoverable_ns_per_step = static_cast<DurationNs>(claimed);
  f.confidence = Confidence::kMedium;
  ctx.AddMetricEvidence(f, "memory.alloc_calls_per_step", ">=", min_calls.value, &min_calls);
  ctx.AddMetricEvidence(f, "memory.steady_alloc_ms", ">", 0, nullptr);
  f.ranges = mem.top_alloc_calls;
  for (const EvidenceRange& r : mem.top_alloc_calls) {
    if (std::find(f.top_events.begin(), f.top_events.end(), r.label) == f.top_events.end()) {
      f.top_events.push_back(r.label);
    }
  }
  // The runtime's own names: ROCm's are hipMalloc/hipFree.
  const char* api =
      ctx.trace.metadata.vendor == GpuVendor::kAmd ? "hipMalloc/hipFree" : "cudaMalloc/cudaFree";
  ctx.Emit(std::move(f), {{"calls", mem.alloc_calls_per_step},
                          {"api", 0, api},
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
  const RuleSpec& spec = ctx.catalog.Spec(kSmallGemms);
  const RuleParam& min_share = ctx.catalog.Get(kSmallGemmsMinGemmSharePct);
  const RuleParam& min_pct = ctx.catalog.Get(kSmallGemmsMinStepPct);
  double share = 100.0 * static_cast<double>(b.underfilled_gemm_ns) / b.gemm_conv_ns;
  double per_step = ctx.PerStep(b.underfilled_saving_ns);
  if (share < min_share.value || ctx.PctOfStep(per_step) < min_pct.value) {
    ctx.Outcome(kSmallGemms, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(per_step);
  f.confidence = Confidence::kLow;  // an upper bound: a bigger batch adds work too
  RuleContext::AddEvidence(f, "diagnose.underfilled_gemm_share_pct", share, unit::kPercent,
                           ">=", min_share.value, &min_share);
  RuleContext::AddEvidence(f, "diagnose.underfilled_saving_step_pct", ctx.PctOfStep(per_step),
                           unit::kPercent, ">=", min_pct.value, &min_pct);
  // Grid fill of every kernel, from the launch arguments, where the trace has them.
  ctx.AddMetricEvidence(f, "kernels.est_sm_efficiency_pct", "<=", 100, nullptr);
  ctx.AddMetricEvidence(f, "kernels.small_grid_time_pct", ">=", 0, nullptr);
  f.top_events = b.top_underfilled_names;
  ctx.Emit(std::move(f), {{"share", share}});
}

}  // namespace

void EvaluateMemoryRules(RuleContext& ctx) {
  NearCapacity(ctx);
  AllocatorChurn(ctx);
  SmallGemms(ctx);
}

std::span<const ParamRef* const> MemoryRuleParams() { return kMemoryRulesParams; }

// memory.*: pressure that bends the work (docs/knowledge.md §3).
std::vector<RuleSpec> MemoryRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "memory.near_capacity",
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kMedium,
      .severity_logic = "fixed at medium (high above 97%): pressure bends the work (smaller "
                        "batches, recomputation) rather than adding idle time",
      .title_template = "peak memory {peak_pct:.0f}% of the {capacity_gb:.0f} GB on device "
                        "{device}",
      .recoverable_logic = "not estimated: memory pressure shows as smaller GEMMs and "
                           "recomputation, counted by those findings",
      .params = {{"peak_pct", 90, "%", "field rule: peak memory > 90% of capacity",
                  "peak allocated (or reserved) above this share of capacity fires"}},
      .fixes = {{"Halve activation memory with bf16 autocast",
                 "with torch.autocast('cuda', dtype=torch.bfloat16): loss = model(x)",
                 FixNeeds{.bf16 = true, .fp32_math = true}},
                {"Shard optimizer state and gradients", "FSDP(model) or DeepSpeed ZeRO stage 2/3",
                 FixNeeds{.job = JobKind::kTraining}},
                {"Recompute only cheap layers (selective activation checkpointing)",
                 "torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)"},
                {"Avoid fragmentation", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"},
                {"Use gradient accumulation only when a larger batch does not fit", ""}},
      .verify = "memory.peak_allocated_pct falls below 90",
      .needs = "allocator [memory] events and the device's total memory",
      .capture_command = kCaptureProfileMemory,
      .checklist = {{Checklist::kTrace, "memory capacity and allocator"},
                    {Checklist::kSignals, "memory capacity and allocator"}},
  });
  rules.push_back(RuleSpec{
      .id = "memory.allocator_churn",
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step; low when not estimable",
      .title_template = "{calls:.0f} {api} calls per steady-state step ({alloc_ms:.1f} ms)",
      .recoverable_logic = "allocator call time per step, carved out of host_busy and then "
                           "launch_bound idle (never more than they hold)",
      .params = {{"min_calls_per_step", 1, "count",
                  "gpuwhy: PyTorch's caching allocator makes steady-state steps allocation-free",
                  "alloc + free calls per steady-state step at or above this fire"}},
      .fixes = {{"Never call torch.cuda.empty_cache() inside the loop", ""},
                {"Let the allocator grow segments instead of splitting",
                 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"},
                {"Reuse preallocated buffers; keep shapes static (pad or bucket lengths)",
                 "out = torch.empty(...) once; torch.add(a, b, out=out)"},
                {"Inspect what the allocator holds", "print(torch.cuda.memory_summary())"}},
      .verify = "memory.alloc_calls_per_step falls to 0",
      .needs = "CUDA runtime calls over at least two ProfilerSteps",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "memory capacity and allocator"}},
  });
  rules.push_back(RuleSpec{
      .id = "memory.small_batch_gemms",
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{share:.0f}% of GEMM/conv time runs in kernels with fewer thread blocks "
                        "than SMs",
      .recoverable_logic = "kernel-time estimate: each under-filled GEMM/conv x (1 - "
                           "blocks/SMs), per step (an upper bound: more work per kernel)",
      .params = {{"min_gemm_share_pct", 20, "%",
                  "gpuwhy: a fifth of GEMM time in under-filled kernels",
                  "under-filled share of GEMM/conv time above this fires"},
                 {"min_step_pct", 2, "%", "gpuwhy", "recoverable above this share of step"}},
      .fixes = {{"Use a larger per-GPU batch (memory permitting) or pack sequences",
                 "mixed precision / activation checkpointing frees memory for a bigger batch"},
                {"Pad matrix dimensions to multiples of 8 (16 for fp8)", ""},
                {"Batch many small matmuls into one",
                 "torch.bmm / torch.baddbmm instead of a "
                 "Python loop of torch.mm"}},
      .verify = "kernels.class.gemm_pct falls per sample; step throughput (samples/s) rises",
      .needs = "kernel launch grids and the device's SM count, or Kineto's blocks per SM "
               "(default torch.profiler, CUDA)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "GEMM sizes and batch"}},
  });
  return rules;
}

}  // namespace gpuwhy
