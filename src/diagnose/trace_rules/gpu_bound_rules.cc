// compute.gpu_bound: the GPU runs kernels for nearly all of the steady step, so no idle fix can
// shorten it much: the step is the kernels' time, and only faster or fewer kernels shorten it.
// Idle left out of the judgement: one-off time (warm-up.h) and queued wait in the gap that opens
// the capture (work issued before the profiler started, still running). Idle-based findings
// found beside it stay, but below the high band they are low: secondary to the kernels.
// The rule says where that time goes (kernel classes, precision) and, since a trace cannot say
// how far each kernel is from its roofline, names the capture that can (docs/findings.md).
#include <fmt/format.h>

#include <array>
#include <string>

#include "diagnose/capture.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kGpuBound = "compute.gpu_bound";

constexpr ParamRef kMinBusyPct{kGpuBound, "min_busy_pct"};
constexpr std::array<const ParamRef*, 1> kGpuBoundRulesParams = {&kMinBusyPct};

// The kernel classes' shares of kernel time, largest first, as "gemm 67%, attention 21%".
std::string TopClasses(const KernelStatsResult& k) {
  std::string out;
  size_t shown = 0;
  for (const KernelClassShare& c : k.classes) {  // by time, descending
    if (shown == 3 || c.time_pct < 1) break;
    out +=
        fmt::format("{}{} {:.0f}%", shown ? ", " : "", KernelClassName(c.kernel_class), c.time_pct);
    ++shown;
  }
  return out.empty() ? "no kernel class known" : out;
}

// Queued wait in the gap that opens the window: the device was still running work issued
// before the capture began (the profiler saw its launch calls, or none), so it was not idle.
// Summed over devices, from the longest gaps (the opening gap of a capture with this artefact
// is among them).
DurationNs LeadingQueuedWait(const RuleContext& ctx) {
  DurationNs sum = 0;
  for (const IdleGap& gap : ctx.analysis.idle_gaps.top_gaps) {
    if (gap.range.start != ctx.window.start) continue;
    for (const IdlePiece& p : gap.pieces) {
      if (p.cause == IdleCause::kQueuedWait) sum += p.range.length();
    }
  }
  return sum;
}

// Idle findings below the high band are secondary while the kernels hold the step: low.
void DemoteIdleFindings(Diagnosis& out) {
  for (Finding& f : out.findings) {
    bool idle_based = f.idle_recoverable_ns_per_step > 0 &&
                      2 * f.idle_recoverable_ns_per_step >= f.recoverable_ns_per_step;
    if (idle_based && f.severity == Severity::kMedium) f.severity = Severity::kLow;
  }
}

void GpuBound(RuleContext& ctx) {
  const IdleTotals& idle = ctx.analysis.idle_gaps.rank;
  const DurationNs one_off =
      idle.ns[static_cast<size_t>(IdleCause::kOneOff)] + LeadingQueuedWait(ctx);
  const DurationNs window = idle.window_ns - one_off;
  if (window <= 0 || ctx.busy.kernel_count == 0) {
    ctx.Outcome(kGpuBound, AssessStatus::kNotAssessed, false, "no GPU work in the window");
    return;
  }
  // One-off time (warm-up, a graph's first replay, teardown) is no part of any step.
  double busy_pct =
      100.0 * (1.0 - static_cast<double>(idle.idle_ns - one_off) / static_cast<double>(window));
  const RuleParam& min_busy = ctx.catalog.Get(kMinBusyPct);
  if (busy_pct < min_busy.value) {
    ctx.Outcome(kGpuBound, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(ctx.catalog.Spec(kGpuBound));
  f.confidence = ctx.step_count >= 3 ? Confidence::kHigh : Confidence::kMedium;
  RuleContext::AddEvidence(f, "diagnose.gpu_busy_steady_pct", busy_pct, unit::kPercent,
                           ">=", min_busy.value, &min_busy);
  if (one_off > 0) {
    RuleContext::AddEvidence(f, "diagnose.not_step_idle_ms", NsToMs(one_off), unit::kMs, "", 0,
                             nullptr);
  }
  for (const char* id : {"kernels.class.gemm_pct", "kernels.class.attention_pct",
                         "kernels.class.elementwise_pct", "flops.matmul_mfu_pct"}) {
    ctx.AddMetricEvidence(f, id, "", 0, nullptr);
  }
  for (const KernelNameStats& k : ctx.analysis.kernels.top) {
    if (f.top_events.size() >= ctx.options.max_events) break;
    f.top_events.push_back(k.display_name);
  }
  f.severity = Severity::kMedium;
  DemoteIdleFindings(ctx.out);
  const std::string classes = TopClasses(ctx.analysis.kernels);
  ctx.Emit(std::move(f),
           {{"busy", busy_pct},
            {"kernel_ms",
             NsToMs(static_cast<DurationNs>(ctx.PerStep(static_cast<double>(ctx.busy.kernel_ns))))},
            {"classes", 0, classes}},
           Severity::kMedium);
}

}  // namespace

void EvaluateGpuBoundRules(RuleContext& ctx) { GpuBound(ctx); }

std::span<const ParamRef* const> GpuBoundRuleParams() { return kGpuBoundRulesParams; }

std::vector<RuleSpec> GpuBoundRuleSpecs() {
  return {RuleSpec{
      .id = kGpuBound,
      .bottleneck_class = BottleneckClass::kCompute,
      .section = ChecklistSection::kKernelsAndSync,
      .default_severity = Severity::kMedium,
      .severity_logic = "medium: the step is measured to be the kernels' time; how much faster "
                        "they can run is not (a roofline or Nsight Compute says)",
      .title_template = "the GPU is busy {busy:.0f}% of the steady step: the step is its "
                        "{kernel_ms:.1f} ms of kernel time ({classes}); only faster or fewer "
                        "kernels shorten it",
      .recoverable_logic = "not estimated from a trace: the other compute findings price what "
                           "their kernels could save; Nsight Compute measures each kernel",
      .params = {{"min_busy_pct", 85, "%",
                  "gpuwhy: above ~85% busy, idle time has little left to give",
                  "GPU busy share of the steady window (one-off time left out) at or above "
                  "this fires"}},
      .fixes = {{"Measure the top kernels against their roofline",
                 "ncu --set full -k regex:<top kernel> -c 20 -o kernels python train.py",
                 FixNeeds{.vendor = GpuVendor::kNvidia}},
                {"Measure the top kernels against their roofline",
                 "rocprofv3 --kernel-trace --pmc ... python train.py  # or omniperf",
                 FixNeeds{.vendor = GpuVendor::kAmd}},
                {"Let the compiler fuse and tune the kernels",
                 "model = torch.compile(model, mode=\"max-autotune\")"},
                {"Lower the precision of the math where accuracy allows",
                 "with torch.autocast('cuda', dtype=torch.bfloat16): ...",
                 FixNeeds{.bf16 = true, .fp32_math = true}}},
      .verify = "step time falls with util.kernel_pct staying high",
      .needs = "kernels in the trace",
      .capture_command = kCaptureNcu,
      .checklist = {{Checklist::kTrace, "kernel efficiency"}},
  }};
}

}  // namespace gpuwhy
