// gpuwhy doctor's rules over SystemFacts: each family's specs and evaluation live in one file
// of this folder; platform_rules.cc lists them in evaluation order.
#pragma once

#include <span>

#include "diagnose/platform_rules/platform_context.h"
#include "diagnose/rule_family.h"

namespace gpuwhy {

std::span<const RuleFamily<PlatformContext>> PlatformRuleFamilies();

std::vector<RuleSpec> HardwareRuleSpecs();  // hardware_rules.cc
void EvaluateHardwareRules(PlatformContext& ctx);
std::span<const ParamRef* const> HardwareRuleParams();
std::vector<RuleSpec> FabricRuleSpecs();  // fabric_rules.cc
void EvaluateFabricRules(PlatformContext& ctx);
std::vector<RuleSpec> NcclRuleSpecs();  // nccl_rules.cc
void EvaluateNcclRules(PlatformContext& ctx);
std::vector<RuleSpec> NodeEventRuleSpecs();  // node_event_rules.cc
void EvaluateNodeEventRules(PlatformContext& ctx);
std::vector<RuleSpec> EnvironmentRuleSpecs();  // environment_rules.cc
void EvaluateEnvironmentRules(PlatformContext& ctx);

void BuildPlatformChecklist(PlatformContext& ctx);  // platform_checklist.cc

}  // namespace gpuwhy
