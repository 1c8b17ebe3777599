// The metric-series rules, in evaluation order. The catalog lists their specs in it too.
#include "diagnose/signal_rules/signal_rules.h"

#include <array>

namespace gpuwhy {
namespace {

constexpr std::array<RuleFamily<SignalRuleContext>, 4> kSignalRules = {{
    {UtilizationSignalSpecs, EvaluateUtilizationSignals, UtilizationSignalParams},
    {HostSignalSpecs, EvaluateHostSignals, HostSignalParams},
    {PlatformSignalSpecs, EvaluatePlatformSignals, PlatformSignalParams},
    {nullptr, EvaluateMemorySignals},
}};

}  // namespace

std::span<const RuleFamily<SignalRuleContext>> SignalRuleFamilies() { return kSignalRules; }

std::vector<RuleSpec> SignalRuleSpecs() { return SpecsOf(SignalRuleFamilies()); }

std::vector<const ParamRef*> SignalParamRefs() { return ParamRefsOf(SignalRuleFamilies()); }

}  // namespace gpuwhy
