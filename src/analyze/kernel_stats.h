// Kernels: the top kernels by total time with exact per-name distributions, gpuwhy classes,
// HTA's kernel-type breakdown (gpu_kernel_type_breakdown), tensor-core use by name, kernels
// per step, the share of short kernels and a log-bucket duration histogram.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/distribution.h"
#include "analyze/hta_view.h"
#include "analyze/metric.h"

namespace gpuwhy {

struct KernelNameStats {
  StringId name;
  std::string display_name;
  KernelClass kernel_class = KernelClass::kOther;
  HtaKernelType hta_type = HtaKernelType::kComputation;
  bool tensor_cores = false;
  bool recognised = true;  // a row of the kernel table (kernel_table.h) matched the name
  int64_t count = 0;
  DurationNs total_ns = 0;
  DistributionSummary duration_us;  // mean, median, p95, min, max... in µs
  double time_pct = 0;              // of all kernel time (sum of durations)
};

// One region of HTA's kernel-type sweep: time during which exactly this set of types ran.
struct HtaTypeShare {
  std::string kernel_type;  // "COMPUTATION", "COMPUTATION overlapping COMMUNICATION", ...
  DurationNs total_ns = 0;
  double pct = 0;  // of the union of all types
};

struct KernelClassShare {
  KernelClass kernel_class = KernelClass::kOther;
  int64_t count = 0;
  DurationNs total_ns = 0;
  double time_pct = 0;
};

struct HistogramBucket {
  DurationNs lower_ns = 0;
  DurationNs upper_ns = 0;  // exclusive; INT64_MAX for the last bucket
  int64_t count = 0;
  DurationNs total_ns = 0;
};

struct StepKernelCount {
  int64_t step = 0;
  int64_t kernels = 0;
  DurationNs kernel_time_ns = 0;
};

struct KernelStatsResult {
  int64_t kernel_count = 0;
  DurationNs kernel_time_ns = 0;           // sum of kernel durations (overlaps counted twice)
  std::vector<KernelNameStats> top;        // top options.top_n by total time
  std::vector<KernelNameStats> all_names;  // every name, by total time descending
  std::vector<KernelClassShare> classes;   // by total time descending
  std::vector<HtaTypeShare> hta_types;     // by time descending, as HTA sorts
  // Tensor cores (by kernel name patterns).
  bool tensor_core_applicable = false;
  DurationNs tensor_core_ns = 0;
  DurationNs tc_eligible_ns = 0;                     // GEMM / convolution / attention kernels
  DurationNs tc_eligible_without_tc_ns = 0;          // ... whose names show no tensor-core use
  std::vector<std::string> top_eligible_without_tc;  // names, by time
  // Kernels no row of the kernel table recognises: class "other", dtype and math unknown.
  DurationNs unclassified_ns = 0;
  std::vector<std::string> top_unclassified;  // names, by time
  // Short kernels (< options.short_kernel_ns).
  int64_t short_count = 0;
  DurationNs short_time_ns = 0;
  std::vector<StepKernelCount> per_step;
  std::vector<HistogramBucket> histogram;  // 1-2-5 log buckets from 1 µs to 1 s
  std::vector<std::string> not_applicable;
};

// HTA's gpu_kernel_type_breakdown sweep over |ops| (syncs are skipped, as HTA's kernel
// filter does): exclusive time per combination of types running together.
std::vector<HtaTypeShare> ComputeHtaTypeBreakdown(std::span<const ViewOp> ops);

// Per-name statistics of |ops| (kernels, memcpy and memset alike; syncs skipped), sorted by
// total time descending, then name.
std::vector<KernelNameStats> ComputeNameStats(const Trace& trace, const DeviceTimelines& timelines,
                                              std::span<const ViewOp> ops);

KernelStatsResult ComputeKernelStats(const AnalysisInput& input, MetricSet& metrics);

// What ComputeKernelStats emits (docs/metrics/kernels.md).
namespace metric {
inline constexpr MetricDecl kKernelsCount{
    "kernels.count", unit::kCount, kRank | kStep,
    "kernels (step: launched by a call inside the step's host range, else starting in it)"};
inline constexpr MetricDecl kKernelsTotalMs{"kernels.total_ms", unit::kMs, kRank,
                                            "sum of kernel durations (overlaps counted twice)"};
inline constexpr MetricDecl kKernelsUniqueNames{"kernels.unique_names", unit::kCount, kRank,
                                                "distinct kernel names"};
inline constexpr MetricDecl kKernelsShortCountPct{
    "kernels.short_count_pct", unit::kPercent, kRank,
    "kernels shorter than options.short_kernel_ns / all kernels"};
inline constexpr MetricDecl kKernelsShortTimePct{"kernels.short_time_pct", unit::kPercent, kRank,
                                                 "time of the short kernels / all kernel time"};
inline constexpr MetricDecl kKernelsClassPct{"kernels.class.{class}_pct", unit::kPercent, kRank,
                                             "kernel time of that gpuwhy class / all kernel time"};
inline constexpr MetricDecl kKernelsHtaTypePct{
    "kernels.hta.{type}_pct", unit::kPercent, kRank,
    "time only that HTA type ran / union of GPU ops (HTA gpu_kernel_type_breakdown)"};
inline constexpr MetricDecl kKernelsHtaOverlapPct{"kernels.hta.overlap_pct", unit::kPercent, kRank,
                                                  "sum of the HTA \"X overlapping Y\" rows"};
inline constexpr MetricDecl kKernelsTensorCoreTimePct{
    "kernels.tensor_core_time_pct", unit::kPercent, kRank,
    "time of kernels whose names show tensor-core use / all kernel time"};
inline constexpr MetricDecl kKernelsTcEligibleTimePct{
    "kernels.tc_eligible_time_pct", unit::kPercent, kRank,
    "GEMM + convolution + attention kernel time / all kernel time"};
inline constexpr MetricDecl kKernelsTcEligibleWithoutTcPct{
    "kernels.tc_eligible_without_tc_pct", unit::kPercent, kRank,
    "eligible time whose names show no tensor-core use / eligible time"};
inline constexpr MetricDecl kKernelsUnclassifiedPct{
    "kernels.unclassified_pct", unit::kPercent, kRank,
    "time of kernels no row of the kernel table recognises / all kernel time"};
inline constexpr MetricDecl kKernelsPerStep{"kernels.per_step", unit::kCount, kRank,
                                            "mean kernels per step"};
inline constexpr const MetricDecl* kKernelStatsMetrics[] = {&kKernelsCount,
                                                            &kKernelsTotalMs,
                                                            &kKernelsUniqueNames,
                                                            &kKernelsShortCountPct,
                                                            &kKernelsShortTimePct,
                                                            &kKernelsClassPct,
                                                            &kKernelsHtaTypePct,
                                                            &kKernelsHtaOverlapPct,
                                                            &kKernelsTensorCoreTimePct,
                                                            &kKernelsTcEligibleTimePct,
                                                            &kKernelsTcEligibleWithoutTcPct,
                                                            &kKernelsUnclassifiedPct,
                                                            &kKernelsPerStep};
}  // namespace metric

}  // namespace gpuwhy
