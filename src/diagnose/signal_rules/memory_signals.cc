// memory.near_capacity from series (its spec is the trace rule's, trace_rules/memory_rules.cc).
#include "diagnose/shared_params.h"
#include "diagnose/signal_rules/signal_rules.h"

namespace gpuwhy {

void EvaluateMemorySignals(SignalRuleContext& r) {
  const RuleParam& peak = r.P(kNearCapacityPeakPct);
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.mem_used_max_pct) continue;
    any = true;
    if (*g.mem_used_max_pct <= peak.value) continue;
    Finding f = r.Start(kNearCapacity);
    f.severity = *g.mem_used_max_pct > 97 ? Severity::kHigh : Severity::kMedium;
    SignalRuleContext::Evidence(f, "signals.mem_used_max_pct", g.device, *g.mem_used_max_pct, "%",
                                ">", peak.value, &peak);
    r.Emit(std::move(f), {{"peak_pct", *g.mem_used_max_pct},
                          {"capacity_gb", g.mem_total_mib.value_or(0) / 1024.0},
                          {"device", static_cast<double>(g.device)}});
  }
  if (!any) {
    r.Outcome(kNearCapacity, AssessStatus::kNotAssessed, false,
              "GPU memory used and total (NVML, --query-gpu memory.used,memory.total)");
    return;
  }
  r.Outcome(kNearCapacity, AssessStatus::kAssessed, false);
}

}  // namespace gpuwhy
