// Compute rules: busy-time estimates, separate from the idle attribution. Each estimates
// the kernel time a fix would save, over disjoint kernel sets (fp32 GEMM/conv; elementwise,
// normalization and reduction without softmax; softmax), so they add up.
#include "diagnose/rule_context.h"

namespace gpuwhy {
namespace {

constexpr const char* kNoTensorCores = "compute.no_tensor_cores";
constexpr const char* kElementwise = "compute.memory_bound_elementwise";
constexpr const char* kAttention = "compute.unfused_attention";

double Saving(double ns, double speedup) { return speedup > 1 ? ns * (1.0 - 1.0 / speedup) : 0; }

double ShareOfKernels(const RuleContext& ctx, DurationNs ns) {
  return ctx.busy.kernel_ns > 0 ? 100.0 * static_cast<double>(ns) / ctx.busy.kernel_ns : 0;
}

void NoTensorCores(RuleContext& ctx) {
  const KernelStatsResult& k = ctx.analysis.kernels;
  if (!k.tensor_core_applicable) {
    std::string why = "tensor-core use is read from NVIDIA kernel names (Volta or later)";
    for (const std::string& na : k.not_applicable) {
      if (na.rfind("tensor cores", 0) == 0) why = na;
    }
    ctx.Outcome(kNoTensorCores, AssessStatus::kNotAssessed, false, why);
    return;
  }
  const RuleSpec& spec = *ctx.catalog.Find(kNoTensorCores);
  const RuleParam* min_share = spec.FindParam("min_share_pct");
  const RuleParam* speedup = spec.FindParam("expected_speedup");
  double share = ShareOfKernels(ctx, ctx.busy.fp32_gemm_conv_ns);
  if (share <= min_share->value) {
    ctx.Outcome(kNoTensorCores, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.PerStep(Saving(static_cast<double>(ctx.busy.fp32_gemm_conv_ns), speedup->value)));
  f.confidence = ctx.trace.devices.size() > 0 ? Confidence::kMedium : Confidence::kLow;
  RuleContext::AddEvidence(f, "diagnose.fp32_gemm_conv_kernel_pct", share, unit::kPercent, ">",
                           min_share->value, min_share);
  ctx.AddMetricEvidence(f, "kernels.tensor_core_time_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "kernels.tc_eligible_without_tc_pct", ">", 0, nullptr);
  f.top_events = ctx.busy.top_fp32_names;
  ctx.Emit(std::move(f), {{"share", share}});
}

void Elementwise(RuleContext& ctx) {
  const RuleSpec& spec = *ctx.catalog.Find(kElementwise);
  const RuleParam* min_share = spec.FindParam("min_share_pct");
  const RuleParam* speedup = spec.FindParam("fusion_speedup");
  double share = ShareOfKernels(ctx, ctx.busy.elementwise_ns);
  if (share <= min_share->value) {
    ctx.Outcome(kElementwise, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.PerStep(Saving(static_cast<double>(ctx.busy.elementwise_ns), speedup->value)));
  f.confidence = Confidence::kLow;  // fusion gains depend on the chain; an estimate
  RuleContext::AddEvidence(f, "diagnose.elementwise_kernel_pct", share, unit::kPercent, ">",
                           min_share->value, min_share);
  ctx.AddMetricEvidence(f, "kernels.class.elementwise_pct", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "kernels.class.normalization_pct", ">=", 0, nullptr);
  f.top_events = ctx.busy.top_elementwise_names;
  ctx.Emit(std::move(f), {{"share", share}});
}

bool HasBatchedMatmul(const Trace& trace) {
  for (size_t i = 0; i < trace.cpu_slices.size(); ++i) {
    if (trace.cpu_slices.kind[i] != CpuSliceKind::kOp) continue;
    std::string_view name = trace.Str(trace.cpu_slices.name[i]);
    if (name == "aten::bmm" || name == "aten::baddbmm") return true;
  }
  return false;
}

void UnfusedAttention(RuleContext& ctx) {
  const RuleSpec& spec = *ctx.catalog.Find(kAttention);
  const RuleParam* min_share = spec.FindParam("min_share_pct");
  const RuleParam* speedup = spec.FindParam("expected_speedup");
  double share = ShareOfKernels(ctx, ctx.busy.softmax_ns);
  // Fused attention kernels present, or no batched matmul next to the softmax: not this.
  if (share <= min_share->value || ctx.busy.attention_ns > 0 || !HasBatchedMatmul(ctx.trace)) {
    ctx.Outcome(kAttention, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.PerStep(Saving(static_cast<double>(ctx.busy.softmax_ns), speedup->value)));
  f.confidence = Confidence::kLow;
  RuleContext::AddEvidence(f, "diagnose.softmax_kernel_pct", share, unit::kPercent, ">",
                           min_share->value, min_share);
  f.top_events = ctx.busy.top_softmax_names;
  ctx.Emit(std::move(f), {{"share", share}});
}

}  // namespace

void EvaluateComputeRules(RuleContext& ctx) {
  if (ctx.busy.kernel_ns == 0) {
    for (const char* id : {kNoTensorCores, kElementwise, kAttention}) {
      ctx.Outcome(id, AssessStatus::kNotAssessed, false, "no kernels inside analysed steps");
    }
    return;
  }
  NoTensorCores(ctx);
  Elementwise(ctx);
  UnfusedAttention(ctx);
}

void EvaluatePlatformRules(RuleContext& ctx) {
  for (const RuleSpec& spec : ctx.catalog.rules()) {
    if (spec.bottleneck_class != BottleneckClass::kPlatform) continue;
    ctx.Outcome(spec.id, AssessStatus::kNotAssessed, false,
                "a trace holds no clocks, link state, driver log or other processes");
  }
}

}  // namespace gpuwhy
