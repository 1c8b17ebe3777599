// Compute rules: busy-time estimates, separate from the idle attribution. Each estimates
// the kernel time a fix would save, over disjoint kernel sets (fp32 GEMM/conv; elementwise,
// normalization and reduction without softmax; softmax), so they add up.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "diagnose/capture.h"
#include "diagnose/shared_fixes.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kElementwise = "compute.memory_bound_elementwise";
constexpr const char* kAttention = "compute.unfused_attention";
constexpr const char* kLowMfu = "compute.low_matmul_mfu";

constexpr ParamRef kElementwiseMinSharePct{kElementwise, "min_share_pct"};
constexpr ParamRef kElementwiseFusionSpeedup{kElementwise, "fusion_speedup"};
constexpr ParamRef kElementwiseMinDramBwPct{kElementwise, "min_dram_bw_pct"};
constexpr ParamRef kAttentionMinSharePct{kAttention, "min_share_pct"};
constexpr ParamRef kAttentionExpectedSpeedup{kAttention, "expected_speedup"};
constexpr ParamRef kLowMfuMaxPct{kLowMfu, "max_mfu_pct"};
constexpr ParamRef kLowMfuTargetPct{kLowMfu, "target_mfu_pct"};
constexpr ParamRef kLowMfuMinSharePct{kLowMfu, "min_share_pct"};
constexpr std::array<const ParamRef*, 10> kComputeRulesParams = {
    &kNoTensorCoresMinSharePct, &kNoTensorCoresExpectedSpeedup,
    &kElementwiseMinSharePct,   &kElementwiseFusionSpeedup,
    &kElementwiseMinDramBwPct,  &kAttentionMinSharePct,
    &kAttentionExpectedSpeedup, &kLowMfuMaxPct,
    &kLowMfuTargetPct,          &kLowMfuMinSharePct};

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
  const RuleSpec& spec = ctx.catalog.Spec(kNoTensorCores);
  const RuleParam& min_share = ctx.catalog.Get(kNoTensorCoresMinSharePct);
  const RuleParam& speedup = ctx.catalog.Get(kNoTensorCoresExpectedSpeedup);
  // GEMM/conv time the kernel table reads as fp32 on SIMT cores (sgemm, scudnn, ffma; see
  // busy_stats.cc): a GEMM whose name the table cannot read is unknown, never counted here.
  double share = ShareOfKernels(ctx, ctx.busy.fp32_gemm_conv_ns);
  if (share <= min_share.value) {
    ctx.Outcome(kNoTensorCores, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.PerStep(Saving(static_cast<double>(ctx.busy.fp32_gemm_conv_ns), speedup.value)));
  // The doubt is whether the GPU has tensor cores at all: a device name settles it, and so does
  // a kernel built for a named architecture (volta_sgemm runs on Volta or later, which do).
  const LowPrecisionSupport precision = ctx.analysis.job.tensor_cores;
  f.confidence = ctx.trace.devices.size() > 0 || precision != LowPrecisionSupport::kUnknown
                     ? Confidence::kMedium
                     : Confidence::kLow;
  RuleContext::AddEvidence(f, "diagnose.fp32_gemm_conv_kernel_pct", share, unit::kPercent, ">",
                           min_share.value, &min_share);
  ctx.AddMetricEvidence(f, "kernels.tensor_core_time_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "kernels.tc_eligible_without_tc_pct", ">", 0, nullptr);
  f.top_events = ctx.busy.top_fp32_names;
  f.fixes = TensorCoreFixes(precision);
  ctx.Emit(std::move(f), {{"share", share}});
}

// Kernel names say elementwise; sampled DRAM bandwidth (nsys GPU_METRICS) says whether memory
// traffic fills the busy time. When it does, the kernels are measured memory-bound: the finding
// gains the counters as evidence, names them in its title, and medium confidence.
std::string SampledMemoryTraffic(const RuleContext& ctx, Finding& f) {
  const GpuMetricsResult& gm = ctx.analysis.gpu_metrics;
  if (!gm.valid || !gm.rank.dram_bw_pct) return "";
  const RuleParam& min_dram = ctx.catalog.Get(kElementwiseMinDramBwPct);
  const double dram = *gm.rank.dram_bw_pct;
  const bool bound = dram >= min_dram.value;
  ctx.AddMetricEvidence(f, "gpu_metrics.dram_bw_pct", bound ? ">=" : "<", min_dram.value,
                        &min_dram);
  ctx.AddMetricEvidence(f, "gpu_metrics.tensor_active_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "gpu_metrics.sm_issue_pct", ">=", 0, nullptr);
  if (!bound) return "";
  f.confidence = Confidence::kMedium;
  return fmt::format("; DRAM bandwidth {:.0f}% of peak{} (nsys GPU_METRICS)", dram,
                     gm.rank.tensor_active_pct
                         ? fmt::format(", tensor pipes {:.0f}%", *gm.rank.tensor_active_pct)
                         : "");
}

void Elementwise(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kElementwise);
  const RuleParam& min_share = ctx.catalog.Get(kElementwiseMinSharePct);
  const RuleParam& speedup = ctx.catalog.Get(kElementwiseFusionSpeedup);
  double share = ShareOfKernels(ctx, ctx.busy.elementwise_ns);
  if (share <= min_share.value) {
    ctx.Outcome(kElementwise, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.PerStep(Saving(static_cast<double>(ctx.busy.elementwise_ns), speedup.value)));
  f.confidence = Confidence::kLow;  // fusion gains depend on the chain; an estimate
  RuleContext::AddEvidence(f, "diagnose.elementwise_kernel_pct", share, unit::kPercent, ">",
                           min_share.value, &min_share);
  ctx.AddMetricEvidence(f, "kernels.class.elementwise_pct", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "kernels.class.normalization_pct", ">=", 0, nullptr);
  std::string sampled = SampledMemoryTraffic(ctx, f);
  f.top_events = ctx.busy.top_elementwise_names;
  ctx.Emit(std::move(f), {{"share", share}, {"sampled", 0, sampled}});
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
  const RuleSpec& spec = ctx.catalog.Spec(kAttention);
  const RuleParam& min_share = ctx.catalog.Get(kAttentionMinSharePct);
  const RuleParam& speedup = ctx.catalog.Get(kAttentionExpectedSpeedup);
  double share = ShareOfKernels(ctx, ctx.busy.softmax_ns);
  // Fused attention kernels present, or no batched matmul next to the softmax: not this.
  if (share <= min_share.value || ctx.busy.attention_ns > 0 || !HasBatchedMatmul(ctx.trace)) {
    ctx.Outcome(kAttention, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.PerStep(Saving(static_cast<double>(ctx.busy.softmax_ns), speedup.value)));
  f.confidence = Confidence::kLow;
  RuleContext::AddEvidence(f, "diagnose.softmax_kernel_pct", share, unit::kPercent, ">",
                           min_share.value, &min_share);
  f.top_events = ctx.busy.top_softmax_names;
  ctx.Emit(std::move(f), {{"share", share}});
}

// The matrix-multiply kernels themselves run far below the peak while they run: small or
// unaligned shapes, a slow tiling. Weighed on the tensor-core time that neither
// compute.no_tensor_cores (fp32 SIMT GEMMs) nor memory.small_batch_gemms (grids smaller than the
// device) weighs, so the estimates add up.
void LowMatmulMfu(RuleContext& ctx) {
  const FlopsResult& flops = ctx.analysis.flops;
  if (!flops.matmul_mfu_pct) {
    std::string why =
        "needs FLOPs (with_flops=True or record_shapes=True), a known device peak "
        "and GEMM or attention kernels";
    for (const std::string& na : flops.not_applicable) {
      if (na.rfind("FLOPs", 0) == 0 || na.rfind("MFU", 0) == 0) why = na;
    }
    ctx.Outcome(kLowMfu, AssessStatus::kNotAssessed, false, why);
    return;
  }
  if (flops.precision == Precision::kFp32 || flops.precision == Precision::kFp64) {
    ctx.Outcome(kLowMfu, AssessStatus::kNotAssessed, false,
                "the GEMMs run fp32/fp64 without tensor cores: compute.no_tensor_cores weighs "
                "them");
    return;
  }
  const RuleSpec& spec = ctx.catalog.Spec(kLowMfu);
  const RuleParam& max_mfu = ctx.catalog.Get(kLowMfuMaxPct);
  const RuleParam& target = ctx.catalog.Get(kLowMfuTargetPct);
  const RuleParam& min_share = ctx.catalog.Get(kLowMfuMinSharePct);
  const double mfu = *flops.matmul_mfu_pct;
  if (mfu >= max_mfu.value || flops.matmul_kernel_time_pct < min_share.value ||
      target.value <= mfu) {
    ctx.Outcome(kLowMfu, AssessStatus::kAssessed, false);
    return;
  }
  // Small-grid GEMMs are memory.small_batch_gemms' time, fp32 ones compute.no_tensor_cores'.
  const BusyStats& b = ctx.busy;
  const double tensor_core_ns =
      static_cast<double>(
          std::max<DurationNs>(0, b.gemm_conv_ns - b.fp32_gemm_conv_ns - b.underfilled_gemm_ns)) +
      static_cast<double>(b.attention_ns);
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(ctx.PerStep(tensor_core_ns * (1.0 - mfu / target.value)));
  // Shapes-derived attention FLOPs assume no causal mask, and the device is matched by name.
  f.confidence = Confidence::kLow;
  ctx.AddMetricEvidence(f, "flops.matmul_mfu_pct", "<", max_mfu.value, &max_mfu);
  ctx.AddMetricEvidence(f, "flops.matmul_kernel_time_pct", ">=", min_share.value, &min_share);
  ctx.AddMetricEvidence(f, "flops.matmul_kernel_tflops", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "flops.mfu_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "kernels.small_grid_time_pct", ">=", 0, nullptr);
  for (const OpFlops& op : flops.by_op) {
    if (f.top_events.size() >= 3) break;
    f.top_events.push_back(op.name);
  }
  ctx.Emit(std::move(f), {{"mfu", mfu}, {"share", flops.matmul_kernel_time_pct}});
}

}  // namespace

void EvaluateComputeRules(RuleContext& ctx) {
  if (ctx.busy.kernel_ns == 0) {
    for (const char* id : {kNoTensorCores, kElementwise, kAttention, kLowMfu}) {
      ctx.Outcome(id, AssessStatus::kNotAssessed, false, "no kernels inside analysed steps");
    }
    return;
  }
  NoTensorCores(ctx);
  Elementwise(ctx);
  UnfusedAttention(ctx);
  LowMatmulMfu(ctx);
}

std::span<const ParamRef* const> ComputeRuleParams() { return kComputeRulesParams; }

// compute.*: kernels that cannot use the machine (docs/knowledge.md §6).
std::vector<RuleSpec> ComputeRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = kNoTensorCores,
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{share:.0f}% of kernel time is fp32 GEMM/conv without tensor cores",
      .recoverable_logic = "kernel-time estimate: fp32 GEMM/conv time x (1 - 1/expected_speedup)",
      .params = {{"min_share_pct", 10, "%", "gpuwhy",
                  "GEMM/conv time without tensor cores above this share of kernel time fires"},
                 {"expected_speedup", 2, "ratio",
                  "gpuwhy assumption: TF32/BF16 tensor cores run fp32 GEMMs >= 2x faster "
                  "(A100 TF32 peak is 8x FP32)",
                  "speed-up assumed for the recoverable estimate"}},
      .fixes = {{"Train in bf16 mixed precision",
                 "with torch.autocast('cuda', dtype=torch.bfloat16): loss = model(x)",
                 FixNeeds{.bf16 = true, .fp32_math = true}},
                {"Allow TF32 on Ampere and later",
                 "torch.backends.cuda.matmul.allow_tf32 = True; "
                 "torch.backends.cudnn.allow_tf32 = True",
                 FixNeeds{.vendor = GpuVendor::kNvidia, .bf16 = true, .fp32_math = true}},
                {"Let cuDNN pick the fastest convolution for fixed shapes",
                 "torch.backends.cudnn.benchmark = True"}},
      .verify = "kernels.tensor_core_time_pct rises; kernels.tc_eligible_without_tc_pct falls",
      .needs = "NVIDIA kernel names on Volta or later",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "kernel efficiency"}},
  });
  rules.push_back(RuleSpec{
      .id = "compute.memory_bound_elementwise",
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{share:.0f}% of kernel time is elementwise, normalization and reduction "
                        "kernels{sampled}",
      .recoverable_logic = "kernel-time estimate: their time x (1 - 1/fusion_speedup)",
      .params = {{"min_share_pct", 30, "%", "gpuwhy",
                  "elementwise + normalization + reduction share of kernel time above this"},
                 {"fusion_speedup", 1.5, "ratio",
                  "gpuwhy assumption: fusing memory-bound chains saves a third of their time",
                  "speed-up assumed for the recoverable estimate"},
                 {"min_dram_bw_pct", 50, "%",
                  "gpuwhy: a window-mean DRAM bandwidth of half the peak or more means memory "
                  "traffic, not math, fills the busy time",
                  "sampled DRAM read + write bandwidth (nsys GPU_METRICS) at least this marks "
                  "the kernels measured memory-bound (medium confidence)"}},
      .fixes = {kCompileFix,
                {"Use fused layers", "fused LayerNorm/RMSNorm (apex, Transformer Engine, Liger)"},
                {"Use a fused optimizer", "torch.optim.AdamW(params, fused=True)",
                 FixNeeds{.job = JobKind::kTraining, .adam_optimizer = true}},
                {"Run in bf16 to halve the bytes moved",
                 "with torch.autocast('cuda', dtype=torch.bfloat16): ...",
                 FixNeeds{.bf16 = true, .fp32_math = true}}},
      .verify = "kernels.class.elementwise_pct falls",
      .needs = "kernel names (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "kernel efficiency"}},
  });
  rules.push_back(RuleSpec{
      .id = "compute.unfused_attention",
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "attention runs as separate matmul + softmax kernels ({share:.0f}% of "
                        "kernel time in softmax)",
      .recoverable_logic = "kernel-time estimate: softmax kernel time x (1 - 1/expected_speedup)",
      .params = {{"min_share_pct", 3, "%", "gpuwhy",
                  "softmax share of kernel time above this, "
                  "with batched GEMMs and no fused attention kernel"},
                 {"expected_speedup", 2, "ratio", "gpuwhy assumption",
                  "speed-up assumed for the recoverable estimate"}},
      .fixes = {{"Use fused attention",
                 "torch.nn.functional.scaled_dot_product_attention(q, k, v)  # is_causal=True "
                 "for a causal decoder only"},
                {"Or FlashAttention directly", "from flash_attn import flash_attn_func"}},
      .verify = "softmax kernels disappear from the top kernels; kernels.class.attention_pct > 0",
      .needs = "kernel names (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "kernel efficiency"}},
  });
  rules.push_back(RuleSpec{
      .id = kLowMfu,
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "GEMM and attention kernels reach {mfu:.0f}% of the dense peak while they "
                        "run ({share:.0f}% of kernel time)",
      .recoverable_logic =
          "kernel-time estimate: (tensor-core GEMM/conv time not in small grids + attention "
          "time) x (1 - flops.matmul_mfu_pct / target_mfu_pct)",
      .params = {{"max_mfu_pct", 30, "%", "gpuwhy",
                  "FLOP rate while GEMM/attention kernels run, as a share of the dense peak, "
                  "below this fires"},
                 {"target_mfu_pct", 50, "%",
                  "gpuwhy assumption: large aligned bf16/fp16 GEMMs reach 60-80% of the dense "
                  "peak on A100/H100 (cuBLAS), FlashAttention-2 50-70% on A100",
                  "rate assumed reachable for the recoverable estimate"},
                 {"min_share_pct", 20, "%", "gpuwhy",
                  "GEMM + attention share of kernel time at least this"}},
      .fixes = {{"Give the GEMMs larger, aligned shapes",
                 "raise the (micro-)batch while memory allows; pad hidden, head and vocabulary "
                 "sizes to multiples of 64 (8 at least for 16-bit types, 16 for fp8); pack "
                 "sequences instead of padding them"},
                {"Let the compiler tune the GEMM tilings",
                 "model = torch.compile(model, mode=\"max-autotune\")"},
                {"Use fused attention",
                 "torch.nn.functional.scaled_dot_product_attention(q, k, v)  # is_causal=True "
                 "for a causal decoder only"}},
      .verify = "flops.matmul_mfu_pct rises; flops.mfu_pct rises",
      .needs = "FLOPs (profile(with_flops=True) or record_shapes=True) and a device in "
               "deviceProperties whose peak gpuwhy knows",
      .capture_command = kCaptureFlops,
      .checklist = {{Checklist::kTrace, "kernel efficiency"}},
  });
  return rules;
}

}  // namespace gpuwhy
