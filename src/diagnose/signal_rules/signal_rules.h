// The rules over metric series: each family's specs and evaluation live in one file of this
// folder; signal_rules.cc lists them in evaluation order.
#pragma once

#include <span>

#include "diagnose/rule_family.h"
#include "diagnose/signal_rules/signal_rule_context.h"

namespace gpuwhy {

std::span<const RuleFamily<SignalRuleContext>> SignalRuleFamilies();

std::vector<RuleSpec> UtilizationSignalSpecs();  // utilization_signals.cc
void EvaluateUtilizationSignals(SignalRuleContext& r);
std::vector<RuleSpec> HostSignalSpecs();  // host_signals.cc
void EvaluateHostSignals(SignalRuleContext& r);
std::vector<RuleSpec> PlatformSignalSpecs();  // platform_signals.cc
void EvaluatePlatformSignals(SignalRuleContext& r);
void EvaluateMemorySignals(SignalRuleContext& r);  // memory_signals.cc

}  // namespace gpuwhy
