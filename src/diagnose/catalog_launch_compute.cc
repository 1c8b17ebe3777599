// Catalog entries: launch (tiny kernels and sync points), compute (kernels that cannot use
// the machine) and platform placeholders. Texts follow KNOWLEDGE.md §5-7.
#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {
namespace {

const Fix kCompileFix = {"Fuse kernels and cut launch cost with torch.compile",
                         "model = torch.compile(model, mode=\"reduce-overhead\")"};
const Fix kCudaGraphFix = {"Capture the static part of the step in a CUDA graph",
                           "g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): out = "
                           "model(static_x)  # then g.replay()"};

std::vector<RuleSpec> LaunchRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "launch.tiny_kernels",
      .bottleneck_class = BottleneckClass::kLaunch,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{kernels:.0f} kernels per step, {short_pct:.0f}% shorter than 10 us: "
                        "GPU idles {ms:.1f} ms per step between launches",
      .recoverable_logic = "idle time attributed to launch_bound, when most kernels are short",
      .params = {{"min_short_count_pct", 50, "%",
                  "gpuwhy: most kernels shorter than 10 us (AnalysisOptions.short_kernel_ns)",
                  "share of kernels that are short above this makes launch-bound idle "
                  "'tiny kernels'"},
                 {"min_kernels_per_step", 100, "count",
                  "gpuwhy, after KNOWLEDGE.md §5: launch-bound jobs run thousands of kernels per "
                  "step",
                  "fewer kernels per step leave launch-bound idle to launch.launch_bound"},
                 {"min_step_pct", 3, "%", "gpuwhy", "launch-bound idle above this share of "
                  "step fires"}},
      .fixes = {kCompileFix,
                {"Use fused optimizers and layers",
                 "torch.optim.AdamW(params, fused=True)  # foreach=True at least"},
                kCudaGraphFix,
                {"Do more work per kernel: larger batches", ""}},
      .verify = "kernels.per_step and idle.launch_bound_pct fall",
      .needs = "kernels and their launch calls (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "launch.launch_bound",
      .bottleneck_class = BottleneckClass::kLaunch,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "GPU idles {ms:.1f} ms per step ({pct:.0f}%) while the host launches "
                        "and dispatches ops",
      .recoverable_logic = "idle time attributed to launch_bound, when kernels are not mostly "
                           "short (else launch.tiny_kernels claims it)",
      .params = {{"min_step_pct", 5, "%", "gpuwhy", "launch-bound idle above this share of step "
                  "fires"},
                 {"max_delay_us", 100, "us", "HTA launch_delay_cutoff: launch delay > 100 us",
                  "evidence: p95 launch delay above this"}},
      .fixes = {kCompileFix, kCudaGraphFix,
                {"Keep the launching thread free: no Python work between ops in the hot loop",
                 ""}},
      .verify = "idle.launch_bound_pct falls; launch.delay_p95_us falls",
      .needs = "kernels and their launch calls (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "launch.sync_points",
      .bottleneck_class = BottleneckClass::kLaunch,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{syncs:.0f} host syncs per step drain the GPU: {ms:.1f} ms idle per "
                        "step ({pct:.0f}%)",
      .recoverable_logic = "idle time attributed to sync_drain (from a blocking call to the "
                           "next launch)",
      .params = {{"min_step_pct", 3, "%", "gpuwhy", "sync-drain idle above this share of step "
                  "fires"}},
      .fixes = {{"Remove .item() / print(tensor) / .cpu() from the loop; accumulate on the GPU "
                 "and read every N steps",
                 "running_loss += loss.detach()  # ...; if step % 100 == 0: "
                 "print(running_loss.item())"},
                {"Drop explicit torch.cuda.synchronize() outside timing code", ""},
                {"Avoid data-dependent shapes (nonzero, boolean masks) in the hot loop",
                 "torch.where(mask, x, 0) instead of x[mask]"}},
      .verify = "sync.blocking_calls per step and idle.sync_drain_pct fall",
      .needs = "CUDA runtime calls (default torch.profiler); with_stack=True names the caller",
      .capture_command = kCaptureWithStack,
  });
  rules.push_back(RuleSpec{
      .id = "launch.queue_starved",
      .bottleneck_class = BottleneckClass::kLaunch,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "GPU idles {ms:.1f} ms per step ({pct:.0f}%) with an empty launch queue "
                        "and no traced host activity",
      .recoverable_logic = "idle time attributed to unknown (no host activity explains it)",
      .params = {{"min_step_pct", 5, "%", "gpuwhy", "unexplained idle above this share of step"},
                 {"max_kernel_util_pct", 50, "%", "field rule: kernel utilization < 50%",
                  "evidence: kernel utilization below this"}},
      .fixes = {{"See what the host does in the gaps",
                 "torch.profiler(..., with_stack=True) or py-spy record -o profile.svg --pid "
                 "<PID>"},
                kCompileFix},
      .verify = "idle.unknown_pct falls; launch.queue_length_time_mean rises",
      .needs = "host activity on every thread (with_stack=True)",
      .capture_command = kCaptureWithStack,
  });
  return rules;
}

std::vector<RuleSpec> ComputeRules() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "compute.no_tensor_cores",
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
                 "with torch.autocast('cuda', dtype=torch.bfloat16): loss = model(x)"},
                {"Allow TF32 on Ampere and later",
                 "torch.backends.cuda.matmul.allow_tf32 = True; "
                 "torch.backends.cudnn.allow_tf32 = True"},
                {"Let cuDNN pick the fastest convolution for fixed shapes",
                 "torch.backends.cudnn.benchmark = True"}},
      .verify = "kernels.tensor_core_time_pct rises; kernels.tc_eligible_without_tc_pct falls",
      .needs = "NVIDIA kernel names on Volta or later",
      .capture_command = kCaptureProfilerSchedule,
  });
  rules.push_back(RuleSpec{
      .id = "compute.memory_bound_elementwise",
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{share:.0f}% of kernel time is elementwise, normalization and reduction "
                        "kernels",
      .recoverable_logic = "kernel-time estimate: their time x (1 - 1/fusion_speedup)",
      .params = {{"min_share_pct", 30, "%", "gpuwhy",
                  "elementwise + normalization + reduction share of kernel time above this"},
                 {"fusion_speedup", 1.5, "ratio",
                  "gpuwhy assumption: fusing memory-bound chains saves a third of their time",
                  "speed-up assumed for the recoverable estimate"}},
      .fixes = {kCompileFix,
                {"Use fused layers", "apex/TE fused LayerNorm, torch.optim.AdamW(fused=True)"},
                {"Train in bf16 to halve the bytes moved",
                 "with torch.autocast('cuda', dtype=torch.bfloat16): ..."}},
      .verify = "kernels.class.elementwise_pct falls",
      .needs = "kernel names (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
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
      .params = {{"min_share_pct", 3, "%", "gpuwhy", "softmax share of kernel time above this, "
                  "with batched GEMMs and no fused attention kernel"},
                 {"expected_speedup", 2, "ratio", "gpuwhy assumption",
                  "speed-up assumed for the recoverable estimate"}},
      .fixes = {{"Use fused attention",
                 "torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)"},
                {"Or FlashAttention directly", "from flash_attn import flash_attn_func"}},
      .verify = "softmax kernels disappear from the top kernels; kernels.class.attention_pct > 0",
      .needs = "kernel names (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
  });
  return rules;
}

}  // namespace

std::vector<RuleSpec> LaunchAndComputeRules() {
  std::vector<RuleSpec> rules = LaunchRules();
  for (RuleSpec& spec : ComputeRules()) rules.push_back(std::move(spec));
  return rules;
}

// The platform rules moved: gpuwhy doctor's to catalog_platform.cc (DoctorPlatformRules),
// the metric-series ones to catalog_signals.cc.
std::vector<RuleSpec> PlatformRules() { return {}; }

}  // namespace gpuwhy
