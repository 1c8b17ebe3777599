// Platform rules from series: throttling, neighbours on the GPU or on the host's cores, the PCIe
// link while busy.
// platform.pcie_downgraded is gpuwhy doctor's rule too (platform_rules/). docs/knowledge.md §7.
#include <array>

#include "diagnose/signal_rules/signal_rules.h"
#include "diagnose/signal_rules/signal_spec.h"

namespace gpuwhy {
namespace {

constexpr ParamRef kThrottlingMinTimePct{"platform.throttling", "min_time_pct"};
constexpr ParamRef kContentionMinProcesses{"platform.contention", "min_processes"};
constexpr ParamRef kCpuContentionMinTimePct{"platform.cpu_contention", "min_time_pct"};
constexpr std::array<const ParamRef*, 3> kPlatformSignalsParams = {
    &kThrottlingMinTimePct, &kContentionMinProcesses, &kCpuContentionMinTimePct};

// The PCIe rule is shared with `gpuwhy doctor` (lspci/sysfs facts) and has no series
// parameter: a link below its maximum in most busy samples is not a transient.
constexpr double kPcieMinBusyPct = 50;

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
    text +=
        fmt::format("{}power violation {:.0f}%", text.empty() ? "" : ", ", *g.power_violation_pct);
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
  const RuleParam& min_time = r.P(kThrottlingMinTimePct);
  double min = min_time.value;
  for (const GpuSignals& g : r.a_.gpus) {
    any = any || g.throttle_recorded || g.power_violation_pct || g.thermal_violation_pct;
    double worst = 0;
    std::string reasons = ThrottleText(g, min, worst);
    if (reasons.empty()) continue;
    Finding f = r.Start(id);
    f.severity = r.ForShare(worst);
    for (size_t i = 0; i < g.throttle_pct.size(); ++i) {
      if (g.throttle_pct[i] < min) continue;
      SignalRuleContext::Evidence(
          f, std::string("signals.throttle_") + kThrottleReasons[i].id + "_pct", g.device,
          g.throttle_pct[i], "%", ">=", min, &min_time);
    }
    if (g.sm_clock_vs_max_pct) {
      SignalRuleContext::Evidence(f, "signals.sm_clock_vs_max_pct", g.device,
                                  *g.sm_clock_vs_max_pct, "%", "<", 100, nullptr);
    }
    r.Emit(std::move(f),
           {{"device", static_cast<double>(g.device)}, {"share", worst}, {"reasons", 0, reasons}});
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

// Processes compete for a GPU only through the SMs they use: one holding memory with no SM
// samples ("-" in pmon) does not slow another down, and two using a few percent each leave the
// SMs mostly free.
constexpr double kContendedSmSumPct = 50;  // their sum at or above this: they slow each other

void Contention(SignalRuleContext& r, bool process_series) {
  const char* id = "platform.contention";
  if (!process_series) {
    r.Outcome(id, AssessStatus::kNotAssessed, false,
              "the processes on each GPU (nvidia-smi pmon, NVML)");
    return;
  }
  const RuleParam& min_processes = r.P(kContentionMinProcesses);
  double min = min_processes.value;
  std::string note;
  for (const GpuSignals& g : r.a_.gpus) {
    auto n = static_cast<double>(g.compute_processes.size());
    if (n < min) continue;
    // signals.cc counts a process as competing from 1% of SM use.
    const bool with_sm = g.competing_sm_sum_pct.has_value();
    const size_t competing = g.competing_processes;
    const double sm_sum = g.competing_sm_sum_pct.value_or(0);
    Finding f = r.Start(id);
    f.severity = Severity::kMedium;
    if (with_sm && (competing < min || sm_sum < kContendedSmSumPct)) {
      note += fmt::format(
          "{}GPU {}: {:.0f} processes, {} using SMs ({:.0f}% together): not "
          "competing for the SMs",
          note.empty() ? "" : "; ", g.device, n, competing, sm_sum);
      continue;
    }
    if (!with_sm) {
      // No per-process SM numbers (NVML process lists, pmon under MIG): cannot tell whether
      // they compete.
      f.severity = Severity::kLow;
      f.confidence = Confidence::kLow;
    }
    SignalRuleContext::Evidence(f, "signals.compute_processes", g.device, n, "count", ">=", min,
                                &min_processes);
    if (with_sm) {
      SignalRuleContext::Evidence(f, "signals.competing_sm_sum_pct", g.device, sm_sum, "%",
                                  ">=", kContendedSmSumPct, nullptr);
      f.evidence.back().threshold_source =
          "gpuwhy: processes slow each other when their SM use together fills the GPU";
    }
    for (const GpuProcess& p : g.compute_processes) {
      f.top_events.push_back(fmt::format("{} {} (in {:.0f}% of samples{})", p.entity, p.name,
                                         p.present_pct,
                                         p.sm_mean_pct ? fmt::format(", SM {:.0f}%", *p.sm_mean_pct)
                                                       : std::string(", SM not sampled")));
    }
    if (!with_sm) {
      f.title = fmt::format(
          "{:.0f} processes with a compute context on GPU {}: per-process SM use was not sampled, "
          "so cannot tell whether they compete (nvidia-smi pmon outside MIG, or DCGM per-process "
          "stats, would decide)",
          n, g.device);
      r.EmitTitled(std::move(f));
      continue;
    }
    r.Emit(std::move(f), {{"processes", n}, {"device", static_cast<double>(g.device)}});
  }
  r.Outcome(id, AssessStatus::kAssessed, false, note);
}

// NVENC/NVDEC at their limit: the video engine, not the SMs, sets the throughput.
constexpr double kMediaSaturatedPct = 90;

void MediaEngine(SignalRuleContext& r) {
  const char* id = "platform.video_engine_saturated";
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.media_mean_pct) continue;
    any = true;
    if (*g.media_mean_pct < kMediaSaturatedPct) continue;
    Finding f = r.Start(id);
    f.severity = Severity::kMedium;
    SignalRuleContext::Evidence(f, "signals.media_mean_pct", g.device, *g.media_mean_pct, "%",
                                ">=", kMediaSaturatedPct, nullptr);
    f.evidence.back().threshold_source =
        "nvidia-smi enc/dec: share of time the video engine was busy";
    if (g.util_mean_pct) {
      SignalRuleContext::Evidence(f, "signals.util_mean_pct", g.device, *g.util_mean_pct, "%", "",
                                  0, nullptr);
    }
    r.Emit(std::move(f), {{"device", static_cast<double>(g.device)},
                          {"pct", *g.media_mean_pct},
                          {"engine", 0, g.media_engine},
                          {"sm", g.util_mean_pct.value_or(0)}});
  }
  if (!any) {
    return r.Outcome(id, AssessStatus::kNotAssessed, false,
                     "encoder/decoder utilization (nvidia-smi dmon enc/dec columns)");
  }
  r.Outcome(id, AssessStatus::kAssessed, false);
}

// The host half of contention: every core busy, mostly with processes outside the job (the
// job's own CPU is known only where gpuwhy run recorded its process tree).
void CpuContention(SignalRuleContext& r) {
  const char* id = "platform.cpu_contention";
  const HostSignals& h = r.a_.host;
  if (!h.cpu_saturated_by_others_pct) {
    r.Outcome(id, AssessStatus::kNotAssessed, false,
              "the job's own CPU beside the host's (gpuwhy run records both)");
    return;
  }
  const RuleParam& min = r.P(kCpuContentionMinTimePct);
  const double share = *h.cpu_saturated_by_others_pct;
  if (share < min.value) {
    r.Outcome(id, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(id);
  f.severity = r.ForShare(share);
  SignalRuleContext::Evidence(f, "signals.cpu_saturated_by_others_pct", -1, share, "%",
                              ">=", min.value, &min);
  f.top_events = h.busiest_others;
  r.Emit(std::move(f), {{"cores", static_cast<double>(h.cores)}, {"share", share}});
}

void Pcie(SignalRuleContext& r) {
  bool any = false;
  for (const GpuSignals& g : r.a_.gpus) {
    if (!g.pcie_downgraded_pct) continue;
    any = true;
    if (*g.pcie_downgraded_pct < kPcieMinBusyPct) continue;
    Finding f = r.Start(kPcieRule);
    f.severity = Severity::kMedium;
    f.title = fmt::format(
        "GPU {} PCIe link at gen {:.0f} x{:.0f} while busy, capable of gen "
        "{:.0f} x{:.0f}",
        g.device, g.pcie_gen.value_or(0), g.pcie_width.value_or(0), g.pcie_gen_max.value_or(0),
        g.pcie_width_max.value_or(0));
    SignalRuleContext::Evidence(f, "signals.pcie_downgraded_pct", g.device, *g.pcie_downgraded_pct,
                                "%", ">=", kPcieMinBusyPct, nullptr);
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

void EvaluatePlatformSignals(SignalRuleContext& r) {
  Throttling(r);
  Contention(r, HasProcessSeries(r.a_));
  MediaEngine(r);
  CpuContention(r);
  Pcie(r);
}

std::span<const ParamRef* const> PlatformSignalParams() { return kPlatformSignalsParams; }

std::vector<RuleSpec> PlatformSignalSpecs() {
  std::vector<RuleSpec> rules;
  RuleSpec thr = Series("platform.throttling", BottleneckClass::kPlatform,
                        ChecklistSection::kPlatform, kPlatformChecklistItem, 1);
  thr.title_template =
      "GPU {device:.0f} clocks throttled {share:.0f}% of the time "
      "({reasons})";
  thr.params = {{"min_time_pct", 5, "%", "gpuwhy",
                 "a throttle reason active above this share "
                 "of samples fires"}};
  thr.fixes = {{"Read the clock-event reasons", "nvidia-smi -q -d PERFORMANCE"},
               {"Fix cooling or the power cap", "nvidia-smi -q -d POWER,TEMPERATURE"}};
  thr.verify = "clock-event reasons clear; SM clock at its maximum under load";
  rules.push_back(std::move(thr));

  RuleSpec con = Series("platform.contention", BottleneckClass::kPlatform,
                        ChecklistSection::kPlatform, kPlatformChecklistItem, 3);
  con.title_template =
      "{processes:.0f} processes with a compute context share GPU "
      "{device:.0f}";
  con.params = {{"min_processes", 2, "count",
                 "docs/knowledge.md §7: other processes on the same GPU",
                 "this many compute processes on one GPU fires"}};
  con.fixes = {{"List processes on the GPU",
                "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"},
               {"Share deliberately (MPS, MIG) or not at all", ""}};
  con.verify = "one compute process per GPU";
  rules.push_back(std::move(con));

  RuleSpec media = Series("platform.video_engine_saturated", BottleneckClass::kPlatform,
                          ChecklistSection::kPlatform, kPlatformChecklistItem, 4);
  media.severity_logic = "medium: the engine is at its limit in the samples";
  media.title_template =
      "GPU {device:.0f} video {engine} busy {pct:.0f}% of the time while SM utilization is "
      "{sm:.0f}%: the encode/decode engine, not the SMs, limits this workload";
  media.fixes = {{"Check the encoder sessions and their throughput",
                  "nvidia-smi --query-gpu=encoder.stats.sessionCount,encoder.stats.averageFps "
                  "--format=csv"},
                 {"Spread streams over more GPUs or engines, lower the preset/resolution, or "
                  "move decoding of training data to the CPU or DALI",
                  ""}};
  media.verify = "enc/dec below 90% with the same throughput, or more streams per second";
  rules.push_back(std::move(media));

  RuleSpec cpu = Series("platform.cpu_contention", BottleneckClass::kPlatform,
                        ChecklistSection::kPlatform, kPlatformChecklistItem, 5);
  cpu.title_template =
      "other processes kept all {cores:.0f} CPU cores busy {share:.0f}% of the time while "
      "the job's own used less than half of them";
  cpu.params = {{"min_time_pct", 20, "%", "gpuwhy: as host.cpu_saturated",
                 "fires above this share of the run"}};
  cpu.needs = kNeedsHost;
  cpu.fixes = {{"See what else runs on the node", "ps -eo pid,pcpu,comm --sort=-pcpu | head"},
               {"Give the job the node, or keep the others off its cores",
                "a dedicated node; cgroup cpusets / taskset for the other processes"}};
  cpu.verify = "signals.cpu_saturated_by_others_pct falls";
  rules.push_back(std::move(cpu));
  return rules;
}

}  // namespace gpuwhy
