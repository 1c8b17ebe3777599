// Efficiency rules from measured activity: the GPU is busy (kernels run most of the time) but
// the sampled counters say few of its SMs work while they do. docs/knowledge.md §0: utilization
// only says a kernel was running; SM activity says how much of the device it used.
#include <algorithm>
#include <array>

#include "diagnose/capture.h"
#include "diagnose/shared_fixes.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kBusyNotEfficient = "compute.busy_not_efficient";
constexpr const char* kSmallGemms = "memory.small_batch_gemms";

constexpr ParamRef kMinUtilPct{kBusyNotEfficient, "min_util_pct"};
constexpr ParamRef kMaxSmActivePct{kBusyNotEfficient, "max_sm_active_pct"};
constexpr ParamRef kTargetSmActivePct{kBusyNotEfficient, "target_sm_active_pct"};
constexpr ParamRef kMinCoveragePct{kBusyNotEfficient, "min_coverage_pct"};
constexpr std::array<const ParamRef*, 4> kEfficiencyRulesParams = {&kMinUtilPct, &kMaxSmActivePct,
                                                    &kTargetSmActivePct, &kMinCoveragePct};

const DeviceUtilization* UtilOf(const UtilizationResult& util, int32_t device) {
  for (const DeviceUtilization& d : util.per_device) {
    if (d.device == device) return &d;
  }
  return nullptr;
}

// What memory.small_batch_gemms already claims of the same under-filled kernels.
double ClaimedBySmallGemms(const Diagnosis& out) {
  for (const Finding& f : out.findings) {
    if (f.id == kSmallGemms) return static_cast<double>(f.recoverable_ns_per_step);
  }
  return 0;
}

void BusyNotEfficient(RuleContext& ctx) {
  const GpuMetricsResult& gm = ctx.analysis.gpu_metrics;
  if (!gm.valid || !gm.rank.sm_active_pct) {
    ctx.Outcome(kBusyNotEfficient, AssessStatus::kNotAssessed, false,
                gm.not_applicable.empty()
                    ? "needs sampled SM activity (nsys GPU_METRICS, or a timestamped DCGM log)"
                    : gm.not_applicable.front());
    return;
  }
  const RuleParam& min_util = ctx.catalog.Get(kMinUtilPct);
  const RuleParam& max_sm = ctx.catalog.Get(kMaxSmActivePct);
  const RuleParam& target = ctx.catalog.Get(kTargetSmActivePct);
  const RuleParam& min_coverage = ctx.catalog.Get(kMinCoveragePct);
  Finding f = ctx.Start(ctx.catalog.Spec(kBusyNotEfficient));
  double gross_ns = 0;  // summed over devices, per step
  double util_sum = 0;
  double sm_sum = 0;
  int fired = 0;
  bool assessed = false;
  for (const DeviceGpuMetrics& d : gm.per_device) {
    const DeviceUtilization* u = UtilOf(ctx.analysis.utilization, d.device);
    if (u == nullptr || !d.means.sm_active_pct || d.means.coverage_pct < min_coverage.value) {
      continue;
    }
    assessed = true;
    const double util = u->share.kernel_pct;
    const double sm = *d.means.sm_active_pct;
    if (util < min_util.value || sm >= max_sm.value) continue;
    // SM activity while kernels run: the window's mean over the busy share of it.
    const double sm_while_busy = std::min(100.0, 100.0 * sm / std::max(util, 1e-9));
    if (sm_while_busy < target.value) {
      const double busy_per_step = static_cast<double>(ctx.step_ns) * util / 100.0;
      gross_ns += busy_per_step * (1.0 - sm_while_busy / target.value);
    }
    ++fired;
    util_sum += util;
    sm_sum += sm;
    const MetricScope scope = MetricScope::Device(d.device);
    ctx.AddMetricEvidence(f, "util.kernel_pct", ">=", min_util.value, &min_util, scope);
    ctx.AddMetricEvidence(f, "gpu_metrics.sm_active_pct", "<", max_sm.value, &max_sm, scope);
    ctx.AddMetricEvidence(f, "gpu_metrics.sm_issue_pct", ">=", 0, nullptr, scope);
    ctx.AddMetricEvidence(f, "gpu_metrics.tensor_active_pct", ">=", 0, nullptr, scope);
    ctx.AddMetricEvidence(f, "gpu_metrics.dram_bw_pct", ">=", 0, nullptr, scope);
    ctx.AddMetricEvidence(f, "gpu_metrics.coverage_pct", ">=", min_coverage.value, &min_coverage,
                          scope);
  }
  if (!assessed) {
    ctx.Outcome(kBusyNotEfficient, AssessStatus::kNotAssessed, false,
                "sampled SM activity covers too little of the analysed steps");
    return;
  }
  if (fired == 0) {
    ctx.Outcome(kBusyNotEfficient, AssessStatus::kAssessed, false);
    return;
  }
  // Per device on average; less what memory.small_batch_gemms claims for the same kernels.
  const double per_step = gross_ns / std::max(ctx.device_count, 1);
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(std::max(0.0, per_step - ClaimedBySmallGemms(ctx.out)));
  f.confidence = Confidence::kMedium;  // measured, but what fills the SMs is the job's to find
  ctx.AddMetricEvidence(f, "kernels.small_grid_time_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "kernels.est_sm_efficiency_pct", "<=", 100, nullptr);
  // A sample longer than a step averages busy and idle parts of steps together.
  if (gm.bin_ns > ctx.step_ns) f.confidence = Confidence::kLow;
  ctx.Emit(std::move(f), {{"util", util_sum / fired},
                          {"sm", sm_sum / fired},
                          {"gpus", static_cast<double>(fired)},
                          {"source", 0, gm.source_label},
                          {"gross_ms", per_step / 1e6}});
}

}  // namespace

void EvaluateEfficiencyRules(RuleContext& ctx) { BusyNotEfficient(ctx); }

std::span<const ParamRef* const> EfficiencyRuleParams() { return kEfficiencyRulesParams; }

std::vector<RuleSpec> EfficiencyRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = kBusyNotEfficient,
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template =
          "GPU busy {util:.0f}% of the time but SMs active only {sm:.0f}% ({source}, "
          "{gpus:.0f} GPU(s)): the kernels leave SMs idle while they run, ~{gross_ms:.1f} "
          "ms/step at the target SM activity (before what other findings claim)",
      .recoverable_logic =
          "busy time per step x (1 - (SM active / kernel utilization) / target_sm_active_pct), "
          "mean over devices, less memory.small_batch_gemms' estimate for the same kernels",
      .params = {{"min_util_pct", 80, "%", "docs/knowledge.md §0: one tiny kernel reads 100%",
                  "kernel utilization at least this is 'busy'"},
                 {"max_sm_active_pct", 50, "%", "gpuwhy, as compute.util_misleading (DCGM)",
                  "sampled SM activity below this while busy fires"},
                 {"target_sm_active_pct", 80, "%",
                  "gpuwhy assumption: large, fused kernels keep >= 80% of the SMs active while "
                  "they run",
                  "SM activity while busy assumed reachable for the recoverable estimate"},
                 {"min_coverage_pct", 50, "%", "gpuwhy",
                  "SM-activity samples (GPU_METRICS or DCGM) must cover at least this share of "
                  "the analysed steps"}},
      .fixes = {kCompileFix,
                {"Give each kernel more work: a larger (micro-)batch, shapes padded to "
                 "multiples of 8/16, sequences packed instead of padded",
                 "DataLoader(ds, batch_size=2 * bs); pad hidden and vocabulary sizes to "
                 "multiples of 64"},
                {"Where many tiny kernels launch back to back, replay them as a CUDA graph",
                 "torch.compile(model, mode=\"reduce-overhead\")  # or torch.cuda.CUDAGraph"},
                {"Use fused kernels: FlashAttention/SDPA",
                 "torch.nn.functional.scaled_dot_product_attention(q, k, v)"},
                {"Use a fused optimizer", "torch.optim.AdamW(params, fused=True)",
                 FixNeeds{.job = JobKind::kTraining, .adam_optimizer = true}}},
      .verify = "gpu_metrics.sm_active_pct rises at the same util.kernel_pct; step time falls",
      .needs = "sampled SM activity: an Nsight Systems export with GPU_METRICS, or a DCGM log "
               "with wall-clock timestamps (dcgm-exporter, gpuwhy record) beside the trace",
      .capture_command = kCaptureGpuMetrics,
      .checklist = {{Checklist::kTrace, "kernel efficiency"}},
  });
  return rules;
}

}  // namespace gpuwhy
