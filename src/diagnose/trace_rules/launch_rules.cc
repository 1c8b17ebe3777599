// Launch rules: sync points (sync_drain idle), tiny kernels or launch-bound host
// (launch_bound idle: one or the other claims it), and a starved queue (unexplained idle).
#include <algorithm>
#include <array>

#include "diagnose/capture.h"
#include "diagnose/shared_fixes.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kSync = "launch.sync_points";
constexpr const char* kTiny = "launch.tiny_kernels";
constexpr const char* kLaunchBound = "launch.launch_bound";
constexpr const char* kStarved = "launch.queue_starved";

constexpr ParamRef kSyncMinStepPct{kSync, "min_step_pct"};
constexpr std::array<const ParamRef*, 1> kSyncParams = {&kSyncMinStepPct};
constexpr ParamRef kTinyMinStepPct{kTiny, "min_step_pct"};
constexpr ParamRef kTinyMinShortCountPct{kTiny, "min_short_count_pct"};
constexpr ParamRef kTinyMinKernelsPerStep{kTiny, "min_kernels_per_step"};
constexpr ParamRef kLaunchBoundMinStepPct{kLaunchBound, "min_step_pct"};
constexpr ParamRef kLaunchBoundMaxDelayUs{kLaunchBound, "max_delay_us"};
constexpr ParamRef kStarvedMinStepPct{kStarved, "min_step_pct"};
constexpr ParamRef kStarvedMaxKernelUtilPct{kStarved, "max_kernel_util_pct"};
constexpr std::array<const ParamRef*, 7> kLaunchParams = {
    &kTinyMinStepPct,         &kTinyMinShortCountPct,  &kTinyMinKernelsPerStep,
    &kLaunchBoundMinStepPct,  &kLaunchBoundMaxDelayUs, &kStarvedMinStepPct,
    &kStarvedMaxKernelUtilPct};

bool NoKernels(RuleContext& ctx, std::initializer_list<const char*> ids) {
  if (ctx.analysis.kernels.kernel_count > 0 && ctx.step_ns > 0) return false;
  for (const char* id : ids) {
    ctx.Outcome(id, AssessStatus::kNotAssessed, false, "no kernels inside analysed steps");
  }
  return true;
}

// True when the rule's share of the step passes its |min_step_pct|; records a quiet outcome
// otherwise.
bool Passes(RuleContext& ctx, const ParamRef& min_step_pct, double per_step) {
  if (ctx.PctOfStep(per_step) > ctx.catalog.Get(min_step_pct).value) return true;
  ctx.Outcome(min_step_pct.rule, AssessStatus::kAssessed, false);
  return false;
}

void AddIdlePctEvidence(RuleContext& ctx, Finding& f, const ParamRef& min_step_pct,
                        std::string metric_id, double per_step) {
  const RuleParam& min_pct = ctx.catalog.Get(min_step_pct);
  RuleContext::AddEvidence(f, std::move(metric_id), ctx.PctOfStep(per_step), unit::kPercent, ">",
                           min_pct.value, &min_pct);
}

}  // namespace

void EvaluateSyncRule(RuleContext& ctx) {
  if (ctx.analysis.sync_copies.blocking_count == 0 && ctx.IdleLeft(IdleCause::kSyncDrain) == 0) {
    AssessStatus status =
        ctx.trace.cpu_slices.size() > 0 ? AssessStatus::kAssessed : AssessStatus::kNotAssessed;
    ctx.Outcome(kSync, status, false, status == AssessStatus::kAssessed ? "" : "no host events");
    return;
  }
  double drain = ctx.IdleLeft(IdleCause::kSyncDrain);
  if (!Passes(ctx, kSyncMinStepPct, drain)) return;
  Finding f = ctx.Start(ctx.catalog.Spec(kSync));
  f.recoverable_ns_per_step = static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kSyncDrain, drain));
  AddIdlePctEvidence(ctx, f, kSyncMinStepPct, "diagnose.sync_drain_idle_step_pct", drain);
  ctx.AddMetricEvidence(f, "idle.sync_drain_pct", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "sync.blocking_calls", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "sync.scalar_reads", ">=", 0, nullptr);
  f.ranges = ctx.analysis.sync_copies.top_blocking;
  ctx.AddIdleEvidence(f, IdleCause::kSyncDrain);
  f.top_events.clear();
  for (const BlockingIssuer& i : ctx.analysis.sync_copies.issuers) {
    f.top_events.push_back(i.name.empty() ? "(no enclosing op)" : i.name);
  }
  double syncs = static_cast<double>(ctx.analysis.sync_copies.blocking_count) /
                 static_cast<double>(std::max<int64_t>(1, ctx.step_count));
  ctx.Emit(std::move(f), {{"syncs", syncs}});
}

void EvaluateLaunchRules(RuleContext& ctx) {
  if (NoKernels(ctx, {kTiny, kLaunchBound, kStarved})) return;
  // launch_bound idle goes to tiny kernels when most kernels are short, else to the host.
  const RuleParam& min_short = ctx.catalog.Get(kTinyMinShortCountPct);
  const RuleParam& min_kernels = ctx.catalog.Get(kTinyMinKernelsPerStep);
  double short_pct = ctx.metrics.ValueOr("kernels.short_count_pct", 0);
  double kernels = static_cast<double>(ctx.busy.kernel_count) /
                   static_cast<double>(std::max<int64_t>(1, ctx.step_count) * ctx.device_count);
  bool tiny = short_pct >= min_short.value && kernels >= min_kernels.value;
  const ParamRef& owner_min_pct = tiny ? kTinyMinStepPct : kLaunchBoundMinStepPct;
  ctx.Outcome(tiny ? kLaunchBound : kTiny, AssessStatus::kAssessed, false);
  double launch = ctx.IdleLeft(IdleCause::kLaunchBound);
  if (Passes(ctx, owner_min_pct, launch)) {
    Finding f = ctx.Start(ctx.catalog.Spec(owner_min_pct.rule));
    f.recoverable_ns_per_step =
        static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kLaunchBound, launch));
    // The profiler instruments every op and launch call, so host-side gaps between kernels
    // are longer under it than in the real run: an upper bound, medium confidence.
    f.confidence = Confidence::kMedium;
    AddIdlePctEvidence(ctx, f, owner_min_pct, "diagnose.launch_bound_idle_step_pct", launch);
    ctx.AddMetricEvidence(f, "kernels.short_count_pct", tiny ? ">=" : "<", min_short.value,
                          &min_short);
    RuleContext::AddEvidence(f, "diagnose.kernels_per_step", kernels, unit::kCount,
                             tiny ? ">=" : "<", min_kernels.value, &min_kernels);
    const RuleParam& max_delay = ctx.catalog.Get(kLaunchBoundMaxDelayUs);
    ctx.AddMetricEvidence(f, "launch.delay_p95_us", ">", max_delay.value, &max_delay);
    ctx.AddMetricEvidence(f, "launch.call_mean_us", ">", 0, nullptr);
    ctx.AddIdleEvidence(f, IdleCause::kLaunchBound);
    ctx.Emit(std::move(f), {{"kernels", kernels}, {"short_pct", short_pct}});
  }
  double unknown = ctx.IdleLeft(IdleCause::kUnknown);
  if (!Passes(ctx, kStarvedMinStepPct, unknown)) return;
  const RuleSpec& spec = ctx.catalog.Spec(kStarved);
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kUnknown, unknown));
  f.confidence = Confidence::kMedium;  // nothing traced explains it
  AddIdlePctEvidence(ctx, f, kStarvedMinStepPct, "diagnose.unknown_idle_step_pct", unknown);
  const RuleParam& max_util = ctx.catalog.Get(kStarvedMaxKernelUtilPct);
  ctx.AddMetricEvidence(f, "util.kernel_pct", "<", max_util.value, &max_util);
  ctx.AddIdleEvidence(f, IdleCause::kUnknown);
  ctx.Emit(std::move(f), {});
}

std::span<const ParamRef* const> SyncRuleParams() { return kSyncParams; }
std::span<const ParamRef* const> LaunchRuleParams() { return kLaunchParams; }

// launch.sync_points claims sync_drain idle, before memory and host rules.
std::vector<RuleSpec> SyncRuleSpecs() {
  std::vector<RuleSpec> rules;
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
      .params = {{"min_step_pct", 3, "%", "gpuwhy",
                  "sync-drain idle above this share of step "
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
      .checklist = {{Checklist::kTrace, "launch overhead and sync points"}},
  });
  return rules;
}

// launch.*: tiny kernels and a starved queue (docs/knowledge.md §5).
std::vector<RuleSpec> LaunchRuleSpecs() {
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
      .params =
          {{"min_short_count_pct", 50, "%",
            "gpuwhy: most kernels shorter than 10 us (AnalysisOptions.short_kernel_ns)",
            "share of kernels that are short above this makes launch-bound idle "
            "'tiny kernels'"},
           {"min_kernels_per_step", 100, "count",
            "gpuwhy, after docs/knowledge.md §5: launch-bound jobs run thousands of kernels per "
            "step",
            "fewer kernels per step leave launch-bound idle to launch.launch_bound"},
           {"min_step_pct", 3, "%", "gpuwhy",
            "launch-bound idle above this share of "
            "step fires"}},
      .fixes = {kCompileFix,
                {"Use fused optimizers",
                 "torch.optim.AdamW(params, fused=True)  # foreach=True at least",
                 FixNeeds{.job = JobKind::kTraining, .adam_optimizer = true}},
                kCudaGraphFix,
                {"Do more work per kernel: larger batches", ""}},
      .verify = "kernels.per_step and idle.launch_bound_pct fall",
      .needs = "kernels and their launch calls (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "launch overhead and sync points"}},
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
      .params = {{"min_step_pct", 5, "%", "gpuwhy",
                  "launch-bound idle above this share of step "
                  "fires"},
                 {"max_delay_us", 100, "us", "HTA launch_delay_cutoff: launch delay > 100 us",
                  "evidence: p95 launch delay above this"}},
      .fixes = {kCompileFix,
                kCudaGraphFix,
                {"Keep the launching thread free: no Python work between ops in the hot loop", ""}},
      .verify = "idle.launch_bound_pct falls; launch.delay_p95_us falls",
      .needs = "kernels and their launch calls (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "launch overhead and sync points"}},
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
      .checklist = {{Checklist::kTrace, "launch overhead and sync points"}},
  });
  return rules;
}

}  // namespace gpuwhy
