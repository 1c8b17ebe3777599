// Signals: what the metric series of a run say (docs/metric-series.md): per GPU the
// utilization and its sawtooth, SM activity, throttling by reason, other processes, the PCIe
// link vs its maximum and memory headroom; for the host iowait, CPU saturation (by the job or
// by the rest of the machine) and the busiest thread of the job. Analyses never parse: input is a
// MetricSeriesSet from any source (live sampler, recording, nvidia-smi or DCGM log). Metric ids:
// docs/metric-series.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/metric.h"
#include "model/metric_series.h"

namespace gpuwhy {

// NVML clocks-event ("throttle") reason bits (nvmlClocksEventReason*), the ones that slow a
// busy GPU down. Idle, application-clock and display bits are not throttling.
struct ThrottleReason {
  uint64_t bit;
  const char* id;     // "sw_power_cap"
  const char* label;  // "software power cap"
};
inline constexpr ThrottleReason kThrottleReasons[] = {
    {0x4, "sw_power_cap", "software power cap"},
    {0x8, "hw_slowdown", "hardware slowdown"},
    {0x20, "sw_thermal", "software thermal slowdown"},
    {0x40, "hw_thermal", "hardware thermal slowdown"},
    {0x80, "hw_power_brake", "hardware power brake"},
};

// Periodic collapse of utilization: high, then under the low threshold, then high again.
struct Sawtooth {
  bool found = false;
  int collapses = 0;        // high -> low transitions
  double period_s = 0;      // median time between collapses
  double period_cv = 0;     // coefficient of variation of those intervals (regularity)
  double low_time_pct = 0;  // share of samples under the low threshold
};

struct GpuProcess {
  std::string entity;  // "pid 4242"
  std::string name;
  double present_pct = 0;  // share of the GPU's samples it was seen in
  // Its own SM and encoder/decoder use (pmon's sm/enc/dec columns), when the source gives a
  // number ("-": not sampled, e.g. a process holding memory only, or any process under MIG).
  std::optional<double> sm_mean_pct;
  std::optional<double> media_mean_pct;  // the busier of its enc and dec means
};

struct GpuSignals {
  int32_t device = 0;
  std::string name;
  size_t samples = 0;
  // gpu.util_pct (NVML/nvidia-smi "utilization"); without it DCGM's graphics-engine activity
  // (GRACT, the share of time a kernel was resident), the same measure from DCGM.
  std::optional<double> util_mean_pct;
  std::optional<double> util_low_pct;        // share of samples < low threshold
  std::optional<double> sm_active_mean_pct;  // DCGM SM activity, when recorded
  std::optional<double> tensor_active_mean_pct;
  // The video engines (NVENC/NVDEC): the busier one's mean, from the GPU's enc/dec columns or,
  // without them, the sum of its processes' means. A GPU encoding video shows low SM
  // utilization and is not idle.
  std::optional<double> media_mean_pct;
  std::string media_engine;  // "encoder" or "decoder"
  // MIG instances (series with an instance entity, "gi 3") and those whose SM or graphics
  // engine activity stayed 0 in every sample, named with their labels (pod, container).
  size_t mig_instances = 0;
  std::vector<std::string> idle_instances;
  Sawtooth sawtooth;
  // Share of samples with each throttle reason active (kThrottleReasons order; 0 when the
  // reasons were not recorded), plus dmon's power/thermal violation columns.
  std::vector<double> throttle_pct;
  bool throttle_recorded = false;
  std::optional<double> power_violation_pct;    // dmon pviol mean
  std::optional<double> thermal_violation_pct;  // dmon tviol: share of samples flagged
  std::optional<double> sm_clock_vs_max_pct;    // mean SM clock / max SM clock
  std::optional<double> temp_max_c;
  std::vector<GpuProcess> compute_processes;  // with a compute context
  // The processes with a sampled SM use of at least 1% and their summed mean SM use; nullopt
  // when no process had an SM sample.
  std::optional<double> competing_sm_sum_pct;
  size_t competing_processes = 0;
  // PCIe: the link while the GPU is busy (an idle GPU lowers its link speed on purpose).
  std::optional<double> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<double> pcie_downgraded_pct;  // share of busy samples below max gen or width
  std::optional<double> mem_used_max_pct;     // peak used / total
  std::optional<double> mem_used_max_mib, mem_total_mib;
};

struct HostSignals {
  size_t samples = 0;
  std::optional<double> cpu_busy_mean_pct;  // all cores
  std::optional<double> cpu_saturated_pct;  // share of samples with all cores >= 95% busy
  // With the job's own CPU recorded (job.cpu_pct, gpuwhy run): the saturated samples split by
  // who used the cores, the job's own processes (at least job_share_pct of the busy CPU) or
  // the rest of the machine, whose busiest processes are named ("pid 4242 stress (190% of a
  // core)").
  std::optional<double> cpu_saturated_by_job_pct;
  std::optional<double> cpu_saturated_by_others_pct;
  std::vector<std::string> busiest_others;
  std::optional<double> iowait_mean_pct;
  std::optional<double> io_wait_gpu_idle_pct;  // share of samples: iowait/disk high, GPU low
  std::optional<double> disk_util_max_pct;
  int cores = 0;
  // The job's busiest thread: pinned at >= 90% of a core while the GPUs are under the low
  // threshold is the GIL signature.
  std::string busiest_thread;  // "tid 4243 (python)"
  std::optional<double> busiest_thread_mean_pct;
  std::optional<double> thread_pinned_gpu_idle_pct;  // share of samples
};

struct SignalOptions {
  double low_util_pct = 20;   // "collapse" and idle: below this (issue: share of time < 20%)
  double high_util_pct = 50;  // a sawtooth rises above this between collapses
  double busy_util_pct = 10;  // PCIe link judged only while the GPU is at least this busy
  double pinned_thread_pct = 90;
  double iowait_pct = 10;
  double disk_busy_pct = 90;
  double saturated_cpu_pct = 95;
  double job_share_pct = 50;  // a saturated sample is the job's when it uses this share
};

struct SignalAnalysis {
  std::string source;
  std::string path;
  bool times_synthesized = false;
  DurationNs span_ns = 0;
  DurationNs interval_ns = 0;  // median spacing of GPU samples
  std::vector<GpuSignals> gpus;
  HostSignals host;
  MetricSet metrics;  // the numbers above as metrics ("signals.util_mean_pct", ...)
};

SignalAnalysis AnalyzeSignals(const MetricSeriesSet& set, const SignalOptions& options = {});

// What AnalyzeSignals emits (docs/metrics/signals.md).
namespace metric {
inline constexpr MetricDecl kSignalsUtilMeanPct{"signals.util_mean_pct", unit::kPercent, kDevice,
                                                "mean of the gpu.util_pct samples"};
inline constexpr MetricDecl kSignalsUtilLowPct{
    "signals.util_low_pct", unit::kPercent, kDevice,
    "share of gpu.util_pct samples below SignalOptions.low_util_pct"};
inline constexpr MetricDecl kSignalsSmActiveMeanPct{
    "signals.sm_active_mean_pct", unit::kPercent, kDevice,
    "mean gpu.sm_active_pct (MIG: mean over instances)"};
inline constexpr MetricDecl kSignalsTensorActiveMeanPct{
    "signals.tensor_active_mean_pct", unit::kPercent, kDevice, "mean gpu.tensor_active_pct"};
inline constexpr MetricDecl kSignalsSawtoothPeriodS{
    "signals.sawtooth_period_s", unit::kSeconds, kDevice,
    "median time between utilization collapses, when regular"};
inline constexpr MetricDecl kSignalsSmClockVsMaxPct{"signals.sm_clock_vs_max_pct", unit::kPercent,
                                                    kDevice, "mean SM clock / max SM clock"};
inline constexpr MetricDecl kSignalsPcieDowngradedPct{
    "signals.pcie_downgraded_pct", unit::kPercent, kDevice,
    "share of busy samples with the PCIe link below its max gen or width"};
inline constexpr MetricDecl kSignalsMemUsedMaxPct{"signals.mem_used_max_pct", unit::kPercent,
                                                  kDevice, "peak used memory / total memory"};
inline constexpr MetricDecl kSignalsComputeProcesses{
    "signals.compute_processes", unit::kCount, kDevice,
    "processes seen with a compute context on the GPU"};
inline constexpr MetricDecl kSignalsMediaMeanPct{
    "signals.media_mean_pct", unit::kPercent, kDevice,
    "mean of the busier video engine (enc or dec; pmon: summed over processes)"};
inline constexpr MetricDecl kSignalsCompetingSmSumPct{
    "signals.competing_sm_sum_pct", unit::kPercent, kDevice,
    "sum of the mean SM use of the processes that use the SMs (pmon sm >= 1%)"};
inline constexpr MetricDecl kSignalsIdleMigInstances{
    "signals.idle_mig_instances", unit::kCount, kDevice,
    "MIG instances with no SM or graphics-engine activity in any sample"};
inline constexpr MetricDecl kSignalsCpuBusyMeanPct{"signals.cpu_busy_mean_pct", unit::kPercent,
                                                   kRank, "mean host.cpu_busy_pct over all cores"};
inline constexpr MetricDecl kSignalsCpuSaturatedPct{
    "signals.cpu_saturated_pct", unit::kPercent, kRank,
    "share of samples with all cores at least saturated_cpu_pct busy"};
inline constexpr MetricDecl kSignalsCpuSaturatedByJobPct{
    "signals.cpu_saturated_by_job_pct", unit::kPercent, kRank,
    "share of samples with all cores saturated and the job using at least job_share_pct of them"};
inline constexpr MetricDecl kSignalsCpuSaturatedByOthersPct{
    "signals.cpu_saturated_by_others_pct", unit::kPercent, kRank,
    "share of samples with all cores saturated, mostly by processes outside the job"};
inline constexpr MetricDecl kSignalsIowaitMeanPct{"signals.iowait_mean_pct", unit::kPercent, kRank,
                                                  "mean host.cpu_iowait_pct"};
inline constexpr MetricDecl kSignalsIoWaitGpuIdlePct{
    "signals.io_wait_gpu_idle_pct", unit::kPercent, kRank,
    "share of samples with high iowait or a busy disk while the GPUs are under low_util_pct"};
inline constexpr MetricDecl kSignalsBusiestThreadMeanPct{
    "signals.busiest_thread_mean_pct", unit::kPercent, kRank, "mean CPU use of the busiest thread"};
inline constexpr MetricDecl kSignalsThreadPinnedGpuIdlePct{
    "signals.thread_pinned_gpu_idle_pct", unit::kPercent, kRank,
    "share of samples with the busiest thread pinned while the GPUs are under low_util_pct"};
inline constexpr const MetricDecl* kSignalMetrics[] = {
    &kSignalsUtilMeanPct,          &kSignalsUtilLowPct,
    &kSignalsSmActiveMeanPct,      &kSignalsTensorActiveMeanPct,
    &kSignalsSawtoothPeriodS,      &kSignalsSmClockVsMaxPct,
    &kSignalsPcieDowngradedPct,    &kSignalsMemUsedMaxPct,
    &kSignalsComputeProcesses,     &kSignalsMediaMeanPct,
    &kSignalsCompetingSmSumPct,    &kSignalsIdleMigInstances,
    &kSignalsCpuBusyMeanPct,       &kSignalsCpuSaturatedPct,
    &kSignalsCpuSaturatedByJobPct, &kSignalsCpuSaturatedByOthersPct,
    &kSignalsIowaitMeanPct,        &kSignalsIoWaitGpuIdlePct,
    &kSignalsBusiestThreadMeanPct, &kSignalsThreadPinnedGpuIdlePct};
}  // namespace metric

// Exposed for tests.
Sawtooth FindSawtooth(const MetricSeries& util, const SignalOptions& options);
// The value of |s| at |t|: the last sample at or before t (held), nullopt before the first.
std::optional<double> ValueAt(const MetricSeries& s, TimeNs t);
HostSignals AnalyzeHostSignals(const MetricSeriesSet& set, const SignalOptions& options);

}  // namespace gpuwhy
