// The rules over one rank's trace: each family's specs and evaluation live in one file of
// this folder; trace_rules.cc lists them in evaluation order (idle claims depend on it).
#pragma once

#include <span>

#include "diagnose/rule_family.h"
#include "diagnose/trace_rules/rule_context.h"

namespace gpuwhy {

std::span<const RuleFamily<RuleContext>> TraceRuleFamilies();
// Every family in order; when the capture holds no steady state, only the families marked
// without_steady_state, the others' rules recorded as not assessed.
void EvaluateTraceRules(RuleContext& ctx);

// input_rules.cc: input_wait idle, exposed host-to-device copies.
std::vector<RuleSpec> InputRuleSpecs();
void EvaluateInputRules(RuleContext& ctx);
std::span<const ParamRef* const> InputRuleParams();
// comm_rules.cc: comm_wait idle and exposed communication.
std::vector<RuleSpec> CommRuleSpecs();
void EvaluateCommRules(RuleContext& ctx);
std::span<const ParamRef* const> CommRuleParams();
// launch_rules.cc: sync_drain idle (before memory and host), then launch_bound and unknown.
std::vector<RuleSpec> SyncRuleSpecs();
void EvaluateSyncRule(RuleContext& ctx);
std::span<const ParamRef* const> SyncRuleParams();
std::vector<RuleSpec> LaunchRuleSpecs();
void EvaluateLaunchRules(RuleContext& ctx);
std::span<const ParamRef* const> LaunchRuleParams();
// memory_rules.cc: allocator churn takes host_busy idle first.
std::vector<RuleSpec> MemoryRuleSpecs();
void EvaluateMemoryRules(RuleContext& ctx);
std::span<const ParamRef* const> MemoryRuleParams();
// host_rules.cc: periodic stall, then cpu gaps; DataParallel.
std::vector<RuleSpec> HostRuleSpecs();
void EvaluateHostRules(RuleContext& ctx);
std::span<const ParamRef* const> HostRuleParams();
// compute_rules.cc: busy-time estimates over disjoint kernel sets. The tensor-core rule's
// id and parameters are shared with the profile-summary rules (summary_rules/).
inline constexpr const char* kNoTensorCores = "compute.no_tensor_cores";
inline constexpr ParamRef kNoTensorCoresMinSharePct{"compute.no_tensor_cores", "min_share_pct"};
inline constexpr ParamRef kNoTensorCoresExpectedSpeedup{"compute.no_tensor_cores",
                                                        "expected_speedup"};
std::vector<RuleSpec> ComputeRuleSpecs();
void EvaluateComputeRules(RuleContext& ctx);
std::span<const ParamRef* const> ComputeRuleParams();
// efficiency_rules.cc: busy but not efficient, from sampled SM activity (GPU_METRICS).
std::vector<RuleSpec> EfficiencyRuleSpecs();
void EvaluateEfficiencyRules(RuleContext& ctx);
std::span<const ParamRef* const> EfficiencyRuleParams();
// gpu_bound_rules.cc: the GPU busy nearly all of the steady step (after the compute rules,
// which price what their kernels could save).
std::vector<RuleSpec> GpuBoundRuleSpecs();
void EvaluateGpuBoundRules(RuleContext& ctx);
std::span<const ParamRef* const> GpuBoundRuleParams();
// quality_rules.cc: a capture that holds warm-up instead of the steady state, or too little
// GPU work to judge.
std::vector<RuleSpec> QualityRuleSpecs();
// Why no per-step rule may speak on this capture ("" when they may): the quality family's
// decision, which EvaluateTraceRules applies.
std::string WhyNoPerStepVerdict(const RuleContext& ctx);
void EvaluateQualityRules(RuleContext& ctx);
std::span<const ParamRef* const> QualityRuleParams();
// trace_rules.cc: platform rules a trace cannot assess.
void EvaluatePlatformRules(RuleContext& ctx);

}  // namespace gpuwhy
