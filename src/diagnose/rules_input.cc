// Input rules: the GPU waits for data (DataLoader) or for host-to-device copies.
#include <algorithm>

#include "diagnose/rule_context.h"

namespace gpuwhy {
namespace {

constexpr const char* kDataLoader = "input.dataloader_wait";
constexpr const char* kPageable = "input.pageable_copies";
constexpr const char* kH2d = "input.h2d_in_critical_path";

bool NoGpuWork(RuleContext& ctx, const char* id) {
  if (ctx.step_ns > 0 && !ctx.trace.active_devices().empty()) return false;
  ctx.Outcome(id, AssessStatus::kNotAssessed, false, "no GPU ops inside analysed steps");
  return true;
}

void DataLoaderWait(RuleContext& ctx) {
  if (NoGpuWork(ctx, kDataLoader)) return;
  const RuleSpec& spec = *ctx.catalog.Find(kDataLoader);
  const RuleParam* min_pct = spec.FindParam("min_step_pct");
  const RuleParam* high_pct = spec.FindParam("high_pct");
  double dataloader_pct = ctx.metrics.ValueOr("step.dataloader_pct", 0);
  double idle_pct = ctx.PctOfStep(ctx.IdleLeft(IdleCause::kInputWait));
  if (std::max(dataloader_pct, idle_pct) <= min_pct->value) {
    ctx.Outcome(kDataLoader, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kInputWait, ctx.IdleLeft(IdleCause::kInputWait)));
  ctx.AddMetricEvidence(f, "step.dataloader_pct", ">", min_pct->value, min_pct);
  ctx.AddMetricEvidence(f, "idle.input_wait_pct", ">", min_pct->value, min_pct);
  ctx.AddMetricEvidence(f, "idle.input_wait_ms_per_step", ">", 0, nullptr);
  ctx.AddIdleEvidence(f, IdleCause::kInputWait);
  // DataLoader time that does not leave the GPU idle is not recoverable by this fix.
  if (f.recoverable_ns_per_step == 0) f.confidence = Confidence::kLow;
  Severity floor = std::max(dataloader_pct, ctx.PctOfStep(f.recoverable_ns_per_step)) >= high_pct->value
                       ? Severity::kHigh
                       : Severity::kInfo;
  ctx.Emit(std::move(f), {}, floor);
}

// Host-to-device copies not hidden under kernels: pageable ones (pinning fixes them) and the
// rest (prefetching fixes them). The two sets are disjoint, so their times add up.
void CopyRule(RuleContext& ctx, const char* id, DurationNs exposed_total,
              const std::vector<EvidenceRange>& ranges, bool pageable) {
  if (NoGpuWork(ctx, id)) return;
  if (ctx.analysis.sync_copies.copies.empty()) {
    ctx.Outcome(id, AssessStatus::kAssessed, false, "no GPU copies in the trace");
    return;
  }
  const RuleSpec& spec = *ctx.catalog.Find(id);
  const RuleParam* min_pct = spec.FindParam("min_step_pct");
  double per_step = ctx.PerStep(static_cast<double>(exposed_total));
  double pct = ctx.PctOfStep(per_step);
  if (pct < min_pct->value || per_step <= 0) {
    ctx.Outcome(id, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(per_step);
  RuleContext::AddEvidence(f, pageable ? "diagnose.pageable_h2d_exposed_step_pct"
                                       : "diagnose.h2d_exposed_step_pct",
                           pct, unit::kPercent, ">=", min_pct->value, min_pct);
  if (pageable) {
    ctx.AddMetricEvidence(f, "copy.pageable_bytes", ">", 0, nullptr);
    ctx.AddMetricEvidence(f, "copy.pageable_count", ">", 0, nullptr);
  }
  for (const CopyStats& c : ctx.analysis.sync_copies.copies) {
    if (c.direction != CopyDirection::kHostToDevice || c.gbps <= 0) continue;
    RuleContext::AddEvidence(f, "copy.htod_gbps", c.gbps, unit::kGBps, ">", 0, nullptr);
    f.evidence.back().metric.scope = MetricScope::Device(c.device);
  }
  f.ranges = ranges;
  for (const EvidenceRange& r : ranges) {
    if (std::find(f.top_events.begin(), f.top_events.end(), r.label) == f.top_events.end()) {
      f.top_events.push_back(r.label);
    }
  }
  ctx.Emit(std::move(f), {});
}

}  // namespace

void EvaluateInputRules(RuleContext& ctx) {
  DataLoaderWait(ctx);
  CopyRule(ctx, kPageable, ctx.busy.pageable_h2d_exposed_ns, ctx.busy.pageable_ranges, true);
  CopyRule(ctx, kH2d, ctx.busy.pinned_h2d_exposed_ns, ctx.busy.pinned_ranges, false);
}

}  // namespace gpuwhy
