// Launch rules: sync points (sync_drain idle), tiny kernels or launch-bound host
// (launch_bound idle: one or the other claims it), and a starved queue (unexplained idle).
#include <algorithm>

#include "diagnose/rule_context.h"

namespace gpuwhy {
namespace {

constexpr const char* kSync = "launch.sync_points";
constexpr const char* kTiny = "launch.tiny_kernels";
constexpr const char* kLaunchBound = "launch.launch_bound";
constexpr const char* kStarved = "launch.queue_starved";

bool NoKernels(RuleContext& ctx, std::initializer_list<const char*> ids) {
  if (ctx.analysis.kernels.kernel_count > 0 && ctx.step_ns > 0) return false;
  for (const char* id : ids) {
    ctx.Outcome(id, AssessStatus::kNotAssessed, false, "no kernels inside analysed steps");
  }
  return true;
}

// True when the rule's share of the step passes; records a quiet outcome otherwise.
bool Passes(RuleContext& ctx, const char* id, double per_step) {
  const RuleParam* min_pct = ctx.catalog.Find(id)->FindParam("min_step_pct");
  if (ctx.PctOfStep(per_step) > min_pct->value) return true;
  ctx.Outcome(id, AssessStatus::kAssessed, false);
  return false;
}

void AddIdlePctEvidence(RuleContext& ctx, Finding& f, const char* id, std::string metric_id,
                        double per_step) {
  const RuleParam* min_pct = ctx.catalog.Find(id)->FindParam("min_step_pct");
  RuleContext::AddEvidence(f, std::move(metric_id), ctx.PctOfStep(per_step), unit::kPercent, ">",
                           min_pct->value, min_pct);
}

}  // namespace

void EvaluateSyncRule(RuleContext& ctx) {
  if (ctx.analysis.sync_copies.blocking_count == 0 && ctx.IdleLeft(IdleCause::kSyncDrain) == 0) {
    AssessStatus status = ctx.trace.cpu_slices.size() > 0 ? AssessStatus::kAssessed
                                                           : AssessStatus::kNotAssessed;
    ctx.Outcome(kSync, status, false, status == AssessStatus::kAssessed ? "" : "no host events");
    return;
  }
  double drain = ctx.IdleLeft(IdleCause::kSyncDrain);
  if (!Passes(ctx, kSync, drain)) return;
  Finding f = ctx.Start(*ctx.catalog.Find(kSync));
  f.recoverable_ns_per_step = static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kSyncDrain, drain));
  AddIdlePctEvidence(ctx, f, kSync, "diagnose.sync_drain_idle_step_pct", drain);
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
  const RuleParam* min_short = ctx.catalog.Find(kTiny)->FindParam("min_short_count_pct");
  const RuleParam* min_kernels = ctx.catalog.Find(kTiny)->FindParam("min_kernels_per_step");
  double short_pct = ctx.metrics.ValueOr("kernels.short_count_pct", 0);
  double kernels = static_cast<double>(ctx.busy.kernel_count) /
                   static_cast<double>(std::max<int64_t>(1, ctx.step_count) * ctx.device_count);
  bool tiny = short_pct >= min_short->value && kernels >= min_kernels->value;
  const char* owner = tiny ? kTiny : kLaunchBound;
  ctx.Outcome(tiny ? kLaunchBound : kTiny, AssessStatus::kAssessed, false);
  double launch = ctx.IdleLeft(IdleCause::kLaunchBound);
  if (Passes(ctx, owner, launch)) {
    Finding f = ctx.Start(*ctx.catalog.Find(owner));
    f.recoverable_ns_per_step =
        static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kLaunchBound, launch));
    // The profiler instruments every op and launch call, so host-side gaps between kernels
    // are longer under it than in the real run: an upper bound, medium confidence.
    f.confidence = Confidence::kMedium;
    AddIdlePctEvidence(ctx, f, owner, "diagnose.launch_bound_idle_step_pct", launch);
    ctx.AddMetricEvidence(f, "kernels.short_count_pct", tiny ? ">=" : "<", min_short->value,
                          min_short);
    RuleContext::AddEvidence(f, "diagnose.kernels_per_step", kernels, unit::kCount,
                             tiny ? ">=" : "<", min_kernels->value, min_kernels);
    const RuleParam* max_delay = ctx.catalog.Find(kLaunchBound)->FindParam("max_delay_us");
    ctx.AddMetricEvidence(f, "launch.delay_p95_us", ">", max_delay->value, max_delay);
    ctx.AddMetricEvidence(f, "launch.call_mean_us", ">", 0, nullptr);
    ctx.AddIdleEvidence(f, IdleCause::kLaunchBound);
    ctx.Emit(std::move(f), {{"kernels", kernels}, {"short_pct", short_pct}});
  }
  double unknown = ctx.IdleLeft(IdleCause::kUnknown);
  if (!Passes(ctx, kStarved, unknown)) return;
  const RuleSpec& spec = *ctx.catalog.Find(kStarved);
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kUnknown, unknown));
  f.confidence = Confidence::kMedium;  // nothing traced explains it
  AddIdlePctEvidence(ctx, f, kStarved, "diagnose.unknown_idle_step_pct", unknown);
  const RuleParam* max_util = spec.FindParam("max_kernel_util_pct");
  ctx.AddMetricEvidence(f, "util.kernel_pct", "<", max_util->value, max_util);
  ctx.AddIdleEvidence(f, IdleCause::kUnknown);
  ctx.Emit(std::move(f), {});
}

}  // namespace gpuwhy
