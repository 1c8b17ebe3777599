// What every rule reads (the trace, its analyses, the catalog) and the shared bookkeeping that
// keeps recoverable times honest: the per-step idle budget by cause, which each idle-based
// rule claims from so that no idle interval counts twice.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "diagnose/finding_builder.h"

namespace gpuwhy {

// Busy-time facts over the analysed steps, summed over devices (one pass over GPU ops).
struct BusyStats {
  DurationNs kernel_ns = 0;
  int64_t kernel_count = 0;
  DurationNs gemm_conv_ns = 0;       // GEMM + convolution kernels
  DurationNs fp32_gemm_conv_ns = 0;  // ... whose names show no tensor-core use
  DurationNs elementwise_ns = 0;     // elementwise + normalization + reduction (no softmax)
  DurationNs softmax_ns = 0;
  DurationNs attention_ns = 0;             // fused attention kernels
  DurationNs underfilled_gemm_ns = 0;      // GEMM/conv with fewer blocks than SMs
  double underfilled_saving_ns = 0;        // sum of time x (1 - blocks/SMs)
  bool grids_known = false;                // some GEMM/conv had a grid and a known SM count
  DurationNs pageable_h2d_exposed_ns = 0;  // not under computation or communication
  DurationNs pinned_h2d_exposed_ns = 0;
  int64_t pageable_h2d_bytes = 0;
  std::vector<EvidenceRange> pageable_ranges;  // longest first
  std::vector<EvidenceRange> pinned_ranges;
  std::vector<std::string> top_fp32_names;  // by time
  std::vector<std::string> top_elementwise_names;
  std::vector<std::string> top_softmax_names;
  std::vector<std::string> top_underfilled_names;
};

BusyStats ComputeBusyStats(const Trace& trace, const TraceAnalysis& analysis, Interval window,
                           size_t top_n);

class RuleContext {
 public:
  RuleContext(const Trace& trace, const TraceAnalysis& analysis, const DiagnoseOptions& options,
              Diagnosis& out);

  const Trace& trace;
  const TraceAnalysis& analysis;
  const DiagnoseOptions& options;
  const Catalog& catalog;
  const MetricSet& metrics;
  Diagnosis& out;

  int64_t step_count = 0;  // analysed steps (1 when synthesized)
  DurationNs step_ns = 0;  // mean analysed step
  Interval window;         // analysed window
  int device_count = 0;    // devices with GPU ops (>= 1 when any)
  BusyStats busy;

  // Share of the mean step, in %.
  double PctOfStep(double ns_per_step) const;
  // A total summed over devices and steps, as time per step on one device.
  double PerStep(double total_ns) const;

  // Idle per step by cause still unclaimed (mean over devices).
  double IdleLeft(IdleCause cause) const { return idle_left_[static_cast<size_t>(cause)]; }
  // Takes up to |want_ns| per step of |cause| idle; returns what it got.
  double ClaimIdle(IdleCause cause, double want_ns);
  double IdleClaimedTotal() const { return idle_claimed_; }

  // A finding pre-filled from the catalog entry (class, fixes, verify, step, rank). Idle
  // claimed between Start and Emit is recorded as the finding's idle part.
  Finding Start(const RuleSpec& spec);
  // Title, severity and confidence, then appends to the diagnosis and records the outcome.
  void Emit(Finding finding, std::initializer_list<TitleArg> args,
            Severity floor = Severity::kInfo);
  void Outcome(std::string_view rule_id, AssessStatus status, bool fired, std::string note = "");

  // Evidence from an analysis metric (skipped when absent) or a derived value.
  void AddMetricEvidence(Finding& f, std::string_view id, const char* comparison, double threshold,
                         const RuleParam* param, MetricScope scope = {}) const;
  static void AddEvidence(Finding& f, std::string id, double value, std::string unit,
                          const char* comparison, double threshold, const RuleParam* param);
  // Idle-gap evidence ranges and host names of one cause, from the longest gaps.
  void AddIdleEvidence(Finding& f, IdleCause cause) const;

 private:
  std::array<double, kIdleCauseCount> idle_left_{};
  double idle_claimed_ = 0;
  double claimed_at_start_ = 0;
};

}  // namespace gpuwhy
