// What a profiler's summary report can decide without a timeline (model/profile_summary.h):
// where the kernel time goes by class, whether tensor cores run the GEMMs and convolutions
// (from the names, or DLProf's own per-kernel flag), and for DLProf the capture's size (its
// iterations, wall clock, GPU time). Idle time, steps, launches and overlap are not in such a
// report: the analysis says so instead of guessing. docs/profile-summaries.md.
#pragma once

#include <string>
#include <vector>

#include "analyze/kernel_class.h"
#include "analyze/metric.h"
#include "model/profile_summary.h"

namespace gpuwhy {

struct SummaryClassShare {
  KernelClass kernel_class = KernelClass::kOther;
  DurationNs total_ns = 0;
  double pct = 0;  // of all kernel time in the report
};

struct SummaryTopKernel {
  std::string name;
  DurationNs total_ns = 0;
  int64_t instances = 0;
  double pct = 0;
  KernelClass kernel_class = KernelClass::kOther;
  bool tensor_cores = false;
};

struct ProfileSummaryAnalysis {
  SummaryTool tool = SummaryTool::kNsysKernelSummary;
  int64_t kernel_rows = 0;
  int64_t instances = 0;
  DurationNs kernel_ns = 0;
  DurationNs tensor_core_ns = 0;             // kernels that run on tensor cores
  DurationNs tc_eligible_ns = 0;             // GEMM, convolution, attention
  DurationNs tc_eligible_without_tc_ns = 0;  // of those, on CUDA cores
  std::vector<SummaryClassShare> classes;    // by time, largest first
  std::vector<SummaryTopKernel> top;         // the largest kernels (by total time)
  std::vector<std::string> not_applicable;   // what a summary cannot tell, and why
  MetricSet metrics;
};

ProfileSummaryAnalysis AnalyzeProfileSummary(const ProfileSummary& summary, size_t top_n = 10);

namespace metric {

inline constexpr MetricDecl kSummaryKernelRows{"summary.kernel_rows", unit::kCount, kRank,
                                               "kernel rows the report lists"};
inline constexpr MetricDecl kSummaryInstances{"summary.kernel_instances", unit::kCount, kRank,
                                              "sum of the rows' instance counts"};
inline constexpr MetricDecl kSummaryKernelMs{"summary.kernel_time_ms", unit::kMs, kRank,
                                             "sum of the rows' total times"};
inline constexpr MetricDecl kSummaryClassPct{"summary.class.{class}_pct", unit::kPercent, kRank,
                                             "that gpuwhy kernel class's time / all kernel time"};
inline constexpr MetricDecl kSummaryTensorCorePct{
    "summary.tensor_core_time_pct", unit::kPercent, kRank,
    "time of kernels on tensor cores (name, or DLProf's Uses TC) / all kernel time"};
inline constexpr MetricDecl kSummaryWithoutTcPct{
    "summary.tc_eligible_without_tc_pct", unit::kPercent, kRank,
    "GEMM + convolution + attention time on CUDA cores / all kernel time"};
inline constexpr MetricDecl kSummaryIterations{"summary.iterations", unit::kCount, kRank,
                                               "DLProf Total Iterations"};
inline constexpr MetricDecl kSummaryWallMs{"summary.wall_ms", unit::kMs, kRank,
                                           "DLProf Wall Clock Time"};
inline constexpr MetricDecl kSummaryGpuBusyPct{
    "summary.gpu_kernel_pct", unit::kPercent, kRank,
    "DLProf All kernels GPU Time / Wall Clock Time (unrounded, unlike its GPU Utilization %)"};
inline constexpr const MetricDecl* kProfileSummaryMetrics[] = {
    &kSummaryKernelRows, &kSummaryInstances,     &kSummaryKernelMs,
    &kSummaryClassPct,   &kSummaryTensorCorePct, &kSummaryWithoutTcPct,
    &kSummaryIterations, &kSummaryWallMs,        &kSummaryGpuBusyPct};

}  // namespace metric

}  // namespace gpuwhy
