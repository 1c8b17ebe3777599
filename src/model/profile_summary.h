// A profiler's own summary report, read when no timeline is given: `nsys stats` kernel
// summaries (cuda_gpu_kern_sum, one row per kernel name) and DLProf's summary and kernel CSVs.
// They hold totals, not events: no step, no idle gap, no launch order. What they can decide
// (which kernels take the GPU time, whether tensor cores run them, how many iterations the
// capture holds) is analysed from this; everything else is "cannot tell".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"
#include "model/data_problems.h"
#include "model/tables.h"

namespace gpuwhy {

enum class SummaryTool : uint8_t {
  kNsysKernelSummary,  // nsys stats --report cuda_gpu_kern_sum (text table)
  kDlprofSummary,      // DLProf dlprof_summary.csv (totals of one profiled run)
  kDlprofKernels,      // DLProf dlprof_kernel.csv (one row per kernel and op)
};

std::string_view SummaryToolName(SummaryTool tool);

// One row of a kernel table: a kernel name and its totals.
struct SummaryKernel {
  std::string name;
  bool name_cut = false;  // the report cut the name ("…"): classify by its start only
  std::string range;      // NVTX range it ran under (kern_sum --filter-nvtx/nvtx-name), or ""
  int64_t instances = 0;
  DurationNs total_ns = 0;
  DurationNs median_ns = kNoValue;  // kNoValue where the report has none
  DurationNs max_ns = kNoValue;
  std::optional<bool> uses_tensor_cores;  // DLProf says so per kernel; nsys does not
};

// DLProf's whole-run totals (dlprof_summary.csv); each kNoValue / nullopt when absent.
struct DlprofTotals {
  std::string gpu_name;
  std::string framework;                        // "PyTorch 1.10.1+cu102"
  int64_t iterations = kNoValue;                // "Total Iterations"
  DurationNs wall_ns = kNoValue;                // "Wall Clock Time (ns)"
  DurationNs kernel_ns = kNoValue;              // All Kernels: GPU Time
  DurationNs tc_kernel_ns = kNoValue;           // Kernels using TC: GPU Time
  DurationNs tc_eligible_unused_ns = kNoValue;  // Ops eligible for TC but not using: GPU Time
  DurationNs op_cpu_ns = kNoValue;              // All ops: CPU Time
  int64_t kernel_count = kNoValue;              // All kernels: # Kernels
  std::optional<double> gpu_utilization_pct;    // "GPU Utilization %", as DLProf rounds it
  std::optional<double> cpu_duration_pct;       // "CPU Duration %"
  std::optional<double> dataloader_duration_pct;
};

struct ProfileSummary {
  std::string path;
  SummaryTool tool = SummaryTool::kNsysKernelSummary;
  std::vector<SummaryKernel> kernels;  // in the report's order (nsys: by time, largest first)
  std::optional<DlprofTotals> dlprof;
  DataProblems problems;  // rows that could not be read (unparsed_line)
};

}  // namespace gpuwhy
