// Signal rules for the host (io-bound, GIL-bound, saturated CPU), the platform (throttling,
// neighbours, PCIe link) and memory capacity.
#include "diagnose/diagnose_signals_context.h"

namespace gpuwhy {
namespace {

// The PCIe rule is shared with `gpuwhy doctor` (lspci/sysfs facts) and has no series
// parameter: a link below its maximum in most busy samples is not a transient.
constexpr double kPcieMinBusyPct = 50;

void HostRule(SignalRuleContext& r, const char* id, const std::optional<double>& share,
              const char* metric, std::initializer_list<SignalTitleArg> args, const char* missing) {
  if (!share) {
    r.Outcome(id, AssessStatus::kNotAssessed, false, missing);
    return;
  }
  double min = r.Param(id, "min_time_pct");
  if (*share < min) {
    r.Outcome(id, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(id);
  f.severity = r.ForShare(*share);
  SignalRuleContext::Evidence(f, metric, -1, *share, "%", ">=", min, r.P(id, "min_time_pct"));
  r.Emit(std::move(f), args);
}

std::string ThrottleText(const GpuSignals& g, double min, double& worst) {
  std::string text;
  worst = 0;
  for (size_t i = 0; i < g.throttle_pct.size(); ++i) {
    if (g.throttle_pct[i] < min) continue;
    worst = std::max(worst, g.throttle_pct[i]);
    text += fmt::format("{}{} {:.0f}%", text.empty() ? "" : ", ", kThrottleReasons[i].label,
                        g.throttle_pct[i]);
  }
  if (g.power_violation_pct && *g.power_violation_pct >= min) {
    worst = std::max(worst, *g.power_violation_pct);
    text += fmt::format("{}power violation {:.0f}%", text.empty() ? "" : ", ",
                        *g.power_violation_pct);
  }
  if (g.thermal_violation_pct && *g.thermal_violation_pct >= min) {
    worst = std::max(worst, *g.thermal_violation_pct);
    text += fmt::format("{}thermal violation {:.0f}%", text.empty() ? "" : ", ",
                        *g.thermal_violation_pct);
  }
  return text;
}

void Throttling(SignalRuleContext& r) {
  const char* id = "platform.throttling";
  bool any = false;
  double min = r.Param(id, "min_time_pct");
  for (const GpuSignals& g : r.a_.gpus) {
    any = any || g.throttle_recorded || g.power_violation_pct || g.thermal_violation_pct;
    double worst = 0;
    std::string reasons = ThrottleText(g, min, worst);
    if (reasons.empty()) continue;
    Finding f = r.Start(id);
    f.severity = r.ForShare(worst);
    for (size_t i = 0; i < g.throttle_pct.size(); ++i) {
      if (g.throttle_pct[i] < min) continue;
      SignalRuleContext::Evidence(f, std::string("signals.throttle_") + kThrottleReasons[i].id +
                                         "_pct", g.device, g.throttle_pct[i], "%", ">=", min,
                                  r.P(id, "min_time_pct"));
    }
    if (g.sm_clock_vs_max_pct) {
      SignalRuleContext::Evidence(f, "signals.sm_clock_vs_max_pct", g.device,
                                  *g.sm_clock_vs_max_pct, "%", "<", 100, nullptr);
    }
    r.Emit(std::move(f), {{"device", {}, static_cast<double>(g.device)},
                          {"share", {}, worst},
                          {"reasons", reasons, 0}});
  }
  if (!any) {
    return r.Outcome(id, AssessStatus::kNotAssessed, false,
                     "clock-event (throttle) reasons or dmon pviol/tviol columns");
  }
  r.Outcome(id, AssessStatus::kAssessed, false);
}

bool HasProcessSeries(const SignalAnalysis& a) {
  return std::any_of(a.gpus.begin(), a.gpus.end(),
                     [](const GpuSignals& g) { return !g.compute_processes.empty(); });
}

void Contention(SignalRuleContext& r, bool process_series) {
  const char* id = "platform.contention";
  if (!process_series) {
    r.Outcome(id, AssessStatus::kNotAssessed, false,
              "the processes on each GPU (nvidia-smi pmon, NVML)");
    return;
  }
  double min = r.Param(id, "min_processes");
  for (const GpuSignals& g : r.a_.gpus) {
    auto n = static_cast<double>(g.compute_processes.size());
    if (n < min) continue;
    Finding f = r.Start(id);
    f.severity = Severity::kMedium;
    SignalRuleContext::Evidence(f, "signals.compute_processes", g.device, n, "count", ">=", min,
                                r.P(id, "min_processes"));
    for (const GpuProcess& p : g.compute_processes) {
      f.top_events.push_back(fmt::format("{} {} (in {:.0f}% of samples)", p.entity, p.name,
                                         p.present_pct));
    }
    r.Emit(std::move(f), {{"processes", {}, n}, {"device", {}, static_cast<double>(g.device)}});
  }
  r.Outcome(id, AssessStatus::kAssessed, false);
}

void Pcie(SignalRuleContext& r) {
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.pcie_downgraded_pct) continue;
    any = true;
    if (*g.pcie_downgraded_pct < kPcieMinBusyPct) continue;
    Finding f = r.Start(kPcieRule);
    f.severity = Severity::kMedium;
    f.title = fmt::format("GPU {} PCIe link at gen {:.0f} x{:.0f} while busy, capable of gen "
                          "{:.0f} x{:.0f}", g.device, g.pcie_gen.value_or(0),
                          g.pcie_width.value_or(0), g.pcie_gen_max.value_or(0),
                          g.pcie_width_max.value_or(0));
    SignalRuleContext::Evidence(f, "signals.pcie_downgraded_pct", g.device,
                                *g.pcie_downgraded_pct, "%", ">=", kPcieMinBusyPct, nullptr);
    f.evidence.back().threshold_source =
        "gpuwhy: below max gen or width in most samples while busy (idle links slow down on "
        "purpose)";
    r.EmitTitled(std::move(f));
  }
  if (!any) {
    r.Outcome(kPcieRule, AssessStatus::kNotAssessed, false,
              "PCIe link generation/width with their maxima while the GPU is busy");
    return;
  }
  r.Outcome(kPcieRule, AssessStatus::kAssessed, false);
}

}  // namespace

void EvaluateHostSignals(SignalRuleContext& r) {
  const HostSignals& h = r.a_.host;
  HostRule(r, "input.io_bound", h.io_wait_gpu_idle_pct, "signals.io_wait_gpu_idle_pct",
           {{"io_pct", {}, h.io_wait_gpu_idle_pct.value_or(0)},
            {"low", {}, r.Param("input.starvation_pattern", "low_util_pct")}},
           "host iowait and disk series (gpuwhy run records them)");
  HostRule(r, "host.gil_bound", h.thread_pinned_gpu_idle_pct, "signals.thread_pinned_gpu_idle_pct",
           {{"pinned", {}, r.Param("host.gil_bound", "pinned_thread_pct")},
            {"share", {}, h.thread_pinned_gpu_idle_pct.value_or(0)}},
           "per-thread CPU of the job (gpuwhy run records it)");
  HostRule(r, "host.cpu_saturated", h.cpu_saturated_pct, "signals.cpu_saturated_pct",
           {{"cores", {}, static_cast<double>(h.cores)},
            {"busy", {}, r.Param("host.cpu_saturated", "saturated_cpu_pct")},
            {"share", {}, h.cpu_saturated_pct.value_or(0)}},
           "host CPU series (gpuwhy run records them)");
  // The thread's name says which one to look at with py-spy.
  for (Finding& f : r.d_.findings) {
    if (f.id == "host.gil_bound" && !h.busiest_thread.empty()) {
      f.top_events.push_back(h.busiest_thread);
    }
  }
}

void EvaluatePlatformSignals(SignalRuleContext& r) {
  Throttling(r);
  Contention(r, HasProcessSeries(r.a_));
  Pcie(r);
}

void EvaluateMemorySignals(SignalRuleContext& r) {
  double peak = r.Param(kNearCapacity, "peak_pct");
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.mem_used_max_pct) continue;
    any = true;
    if (*g.mem_used_max_pct <= peak) continue;
    Finding f = r.Start(kNearCapacity);
    f.severity = *g.mem_used_max_pct > 97 ? Severity::kHigh : Severity::kMedium;
    SignalRuleContext::Evidence(f, "signals.mem_used_max_pct", g.device, *g.mem_used_max_pct,
                                "%", ">", peak, r.P(kNearCapacity, "peak_pct"));
    r.Emit(std::move(f), {{"peak_pct", {}, *g.mem_used_max_pct},
                          {"capacity_gb", {}, g.mem_total_mib.value_or(0) / 1024.0},
                          {"device", {}, static_cast<double>(g.device)}});
  }
  if (!any) {
    r.Outcome(kNearCapacity, AssessStatus::kNotAssessed, false,
              "GPU memory used and total (NVML, --query-gpu memory.used,memory.total)");
    return;
  }
  r.Outcome(kNearCapacity, AssessStatus::kAssessed, false);
}

}  // namespace gpuwhy
