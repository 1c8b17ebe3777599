// The trace rules, in evaluation order: idle-based rules claim their cause's idle time in
// this order (docs/findings.md "Recoverable time"). The catalog lists their specs in it too.
#include "diagnose/trace_rules/trace_rules.h"

#include <array>

namespace gpuwhy {

void EvaluatePlatformRules(RuleContext& ctx) {
  for (const RuleSpec& spec : ctx.catalog.rules()) {
    if (spec.bottleneck_class != BottleneckClass::kPlatform) continue;
    ctx.Outcome(spec.id, AssessStatus::kNotAssessed, false,
                "a trace holds no clocks, link state, driver log or other processes");
  }
}

namespace {

constexpr std::array<RuleFamily<RuleContext>, 11> kTraceRules = {{
    {QualityRuleSpecs, EvaluateQualityRules, QualityRuleParams, true},
    {InputRuleSpecs, EvaluateInputRules, InputRuleParams},
    {CommRuleSpecs, EvaluateCommRules, CommRuleParams},
    {SyncRuleSpecs, EvaluateSyncRule, SyncRuleParams},
    {MemoryRuleSpecs, EvaluateMemoryRules, MemoryRuleParams},
    {HostRuleSpecs, EvaluateHostRules, HostRuleParams},
    {LaunchRuleSpecs, EvaluateLaunchRules, LaunchRuleParams},
    {ComputeRuleSpecs, EvaluateComputeRules, ComputeRuleParams},
    {EfficiencyRuleSpecs, EvaluateEfficiencyRules, EfficiencyRuleParams},
    {GpuBoundRuleSpecs, EvaluateGpuBoundRules, GpuBoundRuleParams},
    {nullptr, EvaluatePlatformRules, nullptr, true},
}};

}  // namespace

std::span<const RuleFamily<RuleContext>> TraceRuleFamilies() { return kTraceRules; }

void EvaluateTraceRules(RuleContext& ctx) {
  std::string why = WhyNoPerStepVerdict(ctx);
  if (why.empty()) {
    EvaluateAll(TraceRuleFamilies(), ctx);
    return;
  }
  // Nothing but warm-up, or a handful of kernels: a per-step cost measured on it is not the
  // job's.
  for (const RuleFamily<RuleContext>& family : TraceRuleFamilies()) {
    if (family.without_steady_state) {
      family.evaluate(ctx);
      continue;
    }
    if (family.specs == nullptr) continue;
    for (const RuleSpec& spec : family.specs()) {
      ctx.Outcome(spec.id, AssessStatus::kNotAssessed, false, why);
    }
  }
}

std::vector<RuleSpec> TraceRuleSpecs() { return SpecsOf(TraceRuleFamilies()); }

std::vector<const ParamRef*> TraceParamRefs() { return ParamRefsOf(TraceRuleFamilies()); }

}  // namespace gpuwhy
