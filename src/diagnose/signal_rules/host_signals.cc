// Host pressure while the GPU waits, from series: io-bound, GIL-bound, saturated CPU.
// docs/knowledge.md §1-2.
#include <array>

#include "diagnose/signal_rules/signal_rules.h"
#include "diagnose/signal_rules/signal_spec.h"

namespace gpuwhy {
namespace {

constexpr ParamRef kIoBoundMinTimePct{"input.io_bound", "min_time_pct"};
constexpr ParamRef kGilBoundMinTimePct{"host.gil_bound", "min_time_pct"};
constexpr ParamRef kCpuSaturatedMinTimePct{"host.cpu_saturated", "min_time_pct"};
constexpr std::array<const ParamRef*, 7> kHostSignalsParams = {
    &kIoBoundIowaitPct,        &kIoBoundDiskBusyPct, &kIoBoundMinTimePct,
    &kGilBoundPinnedThreadPct, &kGilBoundMinTimePct, &kCpuSaturatedSaturatedCpuPct,
    &kCpuSaturatedMinTimePct};

// |min_time_pct|: the rule's threshold; its rule is the rule this evaluates.
void HostRule(SignalRuleContext& r, const ParamRef& min_time_pct,
              const std::optional<double>& share, const char* metric,
              std::initializer_list<TitleArg> args, const char* missing) {
  std::string_view id = min_time_pct.rule;
  if (!share) {
    r.Outcome(id, AssessStatus::kNotAssessed, false, missing);
    return;
  }
  const RuleParam& min = r.P(min_time_pct);
  if (*share < min.value) {
    r.Outcome(id, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(id);
  f.severity = r.ForShare(*share);
  SignalRuleContext::Evidence(f, metric, -1, *share, "%", ">=", min.value, &min);
  r.Emit(std::move(f), args);
}

}  // namespace

void EvaluateHostSignals(SignalRuleContext& r) {
  const HostSignals& h = r.a_.host;
  HostRule(
      r, kIoBoundMinTimePct, h.io_wait_gpu_idle_pct, "signals.io_wait_gpu_idle_pct",
      {{"io_pct", h.io_wait_gpu_idle_pct.value_or(0)}, {"low", r.P(kStarvationLowUtilPct).value}},
      "host iowait and disk series (gpuwhy run records them)");
  HostRule(r, kGilBoundMinTimePct, h.thread_pinned_gpu_idle_pct,
           "signals.thread_pinned_gpu_idle_pct",
           {{"pinned", r.P(kGilBoundPinnedThreadPct).value},
            {"share", h.thread_pinned_gpu_idle_pct.value_or(0)}},
           "per-thread CPU of the job (gpuwhy run records it)");
  // With the job's own CPU recorded, only the samples the job saturated count: cores kept busy
  // by other processes are platform.cpu_contention, and fewer workers would not help.
  const bool split = h.cpu_saturated_by_job_pct.has_value();
  const std::optional<double>& saturated = split ? h.cpu_saturated_by_job_pct : h.cpu_saturated_pct;
  HostRule(r, kCpuSaturatedMinTimePct, saturated,
           split ? "signals.cpu_saturated_by_job_pct" : "signals.cpu_saturated_pct",
           {{"cores", static_cast<double>(h.cores)},
            {"busy", r.P(kCpuSaturatedSaturatedCpuPct).value},
            {"share", saturated.value_or(0)}},
           "host CPU series (gpuwhy run records them)");
  // The thread's name says which one to look at with py-spy.
  for (Finding& f : r.d_.findings) {
    if (f.id == "host.gil_bound" && !h.busiest_thread.empty()) {
      f.top_events.push_back(h.busiest_thread);
    }
  }
}

std::span<const ParamRef* const> HostSignalParams() { return kHostSignalsParams; }

std::vector<RuleSpec> HostSignalSpecs() {
  std::vector<RuleSpec> rules;
  RuleSpec io = Series("input.io_bound", BottleneckClass::kInput, ChecklistSection::kInputAndCpu,
                       "input rhythm, I/O and host CPU");
  io.title_template =
      "the GPUs wait while the host waits on disk: iowait or a saturated disk "
      "{io_pct:.0f}% of the time with the GPUs below {low:.0f}%";
  io.params = {{"iowait_pct", 10, "%", "gpuwhy", "iowait above this is waiting on storage"},
               {"disk_busy_pct", 90, "%", "gpuwhy: a disk busy > 90% is saturated",
                "disk utilization above this counts too"},
               {"min_time_pct", 10, "%", "gpuwhy", "fires above this share of the run"}};
  io.needs = kNeedsHost;
  io.fixes = {{"Cache the dataset on local NVMe or in memory", ""},
              {"Read large sequential shards instead of many small files",
               "WebDataset / TFRecord / memory-mapped arrays"},
              kDataLoaderFix};
  io.verify = "signals.io_wait_gpu_idle_pct falls";
  rules.push_back(std::move(io));

  RuleSpec gil = Series("host.gil_bound", BottleneckClass::kHost, ChecklistSection::kInputAndCpu,
                        "input rhythm, I/O and host CPU");
  gil.title_template =
      "one thread of the job is pinned at >= {pinned:.0f}% of a core "
      "{share:.0f}% of the time while the GPUs idle: Python (GIL) bound";
  gil.params = {{"pinned_thread_pct", 90, "%", "docs/knowledge.md §2: one CPU thread at 100%",
                 "a thread above this share of one core is pinned"},
                {"min_time_pct", 20, "%", "gpuwhy", "fires above this share of the run"}};
  gil.needs = kNeedsHost;
  gil.fixes = {{"See where the thread spends its time", "py-spy dump --pid PID; py-spy top"},
               {"Move Python work (tokenizing, collate loops, logging) out of the main loop "
                "into DataLoader workers or ahead of time",
                ""},
               kDataLoaderFix};
  gil.verify = "signals.thread_pinned_gpu_idle_pct falls";
  rules.push_back(std::move(gil));

  RuleSpec sat = Series("host.cpu_saturated", BottleneckClass::kHost,
                        ChecklistSection::kInputAndCpu, "input rhythm, I/O and host CPU");
  sat.title_template =
      "all {cores:.0f} CPU cores saturated (>= {busy:.0f}% busy) {share:.0f}% "
      "of the time";
  sat.params = {{"saturated_cpu_pct", 95, "%", "gpuwhy",
                 "all-core busy above this is "
                 "saturated"},
                {"min_time_pct", 20, "%", "gpuwhy", "fires above this share of the run"}};
  sat.needs = kNeedsHost;
  sat.fixes = {{"Keep cores for the main process: fewer DataLoader workers or pinned ones",
                "taskset / cgroups; num_workers = physical cores - 2"},
               {"Move CPU-heavy transforms offline or onto the GPU", "NVIDIA DALI"}};
  sat.verify = "signals.cpu_saturated_pct falls";
  rules.push_back(std::move(sat));
  return rules;
}

}  // namespace gpuwhy
