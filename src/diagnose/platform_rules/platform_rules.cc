// gpuwhy doctor's rules, in evaluation order. The catalog lists their specs in it too.
#include "diagnose/platform_rules/platform_rules.h"

#include <array>

namespace gpuwhy {
namespace {

constexpr std::array<RuleFamily<PlatformContext>, 5> kPlatformRules = {{
    {HardwareRuleSpecs, EvaluateHardwareRules, HardwareRuleParams},
    {NodeEventRuleSpecs, EvaluateNodeEventRules},
    {FabricRuleSpecs, EvaluateFabricRules},
    {NcclRuleSpecs, EvaluateNcclRules},
    {EnvironmentRuleSpecs, EvaluateEnvironmentRules},
}};

}  // namespace

std::span<const RuleFamily<PlatformContext>> PlatformRuleFamilies() { return kPlatformRules; }

std::vector<RuleSpec> PlatformRuleSpecs() { return SpecsOf(PlatformRuleFamilies()); }

std::vector<const ParamRef*> PlatformParamRefs() { return ParamRefsOf(PlatformRuleFamilies()); }

}  // namespace gpuwhy
