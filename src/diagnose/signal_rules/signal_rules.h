// The rules over metric series: each family's specs and evaluation live in one file of this
// folder; signal_rules.cc lists them in evaluation order.
#pragma once

#include <span>

#include "diagnose/rule_family.h"
#include "diagnose/signal_rules/signal_rule_context.h"

namespace gpuwhy {

std::span<const RuleFamily<SignalRuleContext>> SignalRuleFamilies();

// Parameters the series analysis (SignalOptionsFromCatalog) and other rules' titles read too.
inline constexpr ParamRef kStarvationLowUtilPct{"input.starvation_pattern", "low_util_pct"};
inline constexpr ParamRef kStarvationHighUtilPct{"input.starvation_pattern", "high_util_pct"};
inline constexpr ParamRef kIoBoundIowaitPct{"input.io_bound", "iowait_pct"};
inline constexpr ParamRef kIoBoundDiskBusyPct{"input.io_bound", "disk_busy_pct"};
inline constexpr ParamRef kGilBoundPinnedThreadPct{"host.gil_bound", "pinned_thread_pct"};
inline constexpr ParamRef kCpuSaturatedSaturatedCpuPct{"host.cpu_saturated", "saturated_cpu_pct"};

std::vector<RuleSpec> UtilizationSignalSpecs();  // utilization_signals.cc
void EvaluateUtilizationSignals(SignalRuleContext& r);
std::span<const ParamRef* const> UtilizationSignalParams();
std::vector<RuleSpec> HostSignalSpecs();  // host_signals.cc
void EvaluateHostSignals(SignalRuleContext& r);
std::span<const ParamRef* const> HostSignalParams();
std::vector<RuleSpec> PlatformSignalSpecs();  // platform_signals.cc
void EvaluatePlatformSignals(SignalRuleContext& r);
std::span<const ParamRef* const> PlatformSignalParams();
void EvaluateMemorySignals(SignalRuleContext& r);  // memory_signals.cc

}  // namespace gpuwhy
