// `gpuwhy diff BASE TEST`: what changed between two runs. The comparison is an analysis over
// two RankSummary values (from traces through the pipeline with every kernel name kept, or read
// back from JSON reports), in nanoseconds, compared and shown in milliseconds; renderers are in
// diff_render.h.
// Step statistics are medians with a robust spread (1.4826 × median absolute deviation,
// the standard deviation for normal data), so one slow step does not swing the verdict.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "ranks/rank_summary.h"

namespace gpuwhy {

struct Spread {
  double median = NAN;
  double spread = NAN;  // 1.4826 × MAD: robust step-to-step noise
  size_t n = 0;
};
Spread RobustSpread(std::vector<double> values);

struct ValueChange {
  std::string name;
  Spread base;
  Spread test;
  double delta() const { return test.median - base.median; }
};

struct KernelChange {
  std::string name;
  int64_t base_count = 0;
  int64_t test_count = 0;
  double base_ms_per_step = 0;  // total time / steps
  double test_ms_per_step = 0;
  double base_mean_us = 0;  // per call
  double test_mean_us = 0;
  std::string kind;  // "added", "removed", "slower", "faster"
};

struct FindingChange {
  std::string id;
  std::string kind;   // "added", "resolved", "kept"
  std::string title;  // the test's title, or the base's when resolved
  double base_recoverable_ms = 0;
  double test_recoverable_ms = 0;
};

struct DiffOptions {
  double max_regression_pct = NAN;  // NaN: no gate
  double kernel_change_pct = 5;     // mean duration change that counts as slower / faster
  size_t max_kernels = 15;          // per list
};

struct RunDiff {
  std::string base_path;
  std::string test_path;
  ValueChange step;                     // step time, ms
  std::vector<ValueChange> categories;  // per step, ms, categories both runs have
  double base_kernel_util_pct = NAN, test_kernel_util_pct = NAN;
  double base_gpu_op_util_pct = NAN, test_gpu_op_util_pct = NAN;
  std::vector<ValueChange> idle;  // ms per step by cause (no spread: whole-run means)
  std::vector<FindingChange> findings;
  std::vector<KernelChange> kernels;  // added, removed, slower, faster: largest time change first
  bool kernels_partial = false;       // a side listed its top-N kernels only
  double step_change_pct = NAN;       // (test - base) / base × 100 of the median step
  double noise_ms = NAN;              // max of the two sides' spreads
  bool significant = false;           // |step change| > noise
  bool regressed = false;             // the --max-regression gate fired
  std::string moved_category;         // the category whose per-step median moved most
  std::string verdict;                // "TEST is 23% faster per step; dataloader −41.0 ms"
  std::vector<std::string> notes;
};

// Compares the steps with a breakdown (RankStepTiming::time_ns), the rank-wide utilization and
// idle-per-step metrics, the findings and kernel_stats.
RunDiff DiffRuns(const RankSummary& base, const RankSummary& test, const DiffOptions& options = {});

}  // namespace gpuwhy
