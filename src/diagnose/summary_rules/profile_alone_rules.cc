#include "diagnose/summary_rules/profile_alone_rules.h"

#include <algorithm>

#include <fmt/format.h>

#include "diagnose/finding_builder.h"
#include "diagnose/outcome_recorder.h"
#include "diagnose/shared_fixes.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr size_t kNotedKernels = 5;
// Nsight Compute's SOL rule: below 60% of peak on both units is latency, not throughput; a
// quarter of the warp slots is gpuwhy's low-occupancy line (roofline.h).
constexpr double kHighThroughputPct = 60;
constexpr double kLowOccupancyPct = 25;

std::string Us(double ns) { return fmt::format("{:.1f} us", ns / 1000); }

std::string ShortName(const std::string& name) {
  return name.size() > 60 ? name.substr(0, 57) + "..." : name;
}

void NoTensorCores(const ProfileAloneResult& a, const DiagnoseOptions& options, Diagnosis& d) {
  const RuleParam& min_share = options.catalog.Get(kNoTensorCoresMinSharePct);
  const RuleParam& speedup = options.catalog.Get(kNoTensorCoresExpectedSpeedup);
  if (!a.timed || a.total_ns <= 0) {
    RecordOutcome(d.outcomes, OutcomeMerge::kPerDevice, kNoTensorCores, AssessStatus::kNotAssessed,
                  false, "kernel durations (Duration, or sm__cycles_elapsed with the SM clock)");
    return;
  }
  if (a.fp32_simt_pct <= min_share.value) {
    RecordOutcome(d.outcomes, OutcomeMerge::kPerDevice, kNoTensorCores, AssessStatus::kAssessed,
                  false, "");
    return;
  }
  // Tensor cores shorten the math, not the stalls: only the share of the GEMMs' time the SM
  // pipes were busy can shrink by the expected speed-up.
  const double busy = a.fp32_simt_sm_pct > 0 ? std::min(1.0, a.fp32_simt_sm_pct / 100) : 1.0;
  const double saved = speedup.value > 1 ? a.fp32_simt_ns * busy * (1 - 1 / speedup.value) : 0;
  const bool small = a.fp32_simt_sm_pct < kHighThroughputPct && a.fp32_simt_occupancy_pct > 0 &&
                     a.fp32_simt_occupancy_pct < kLowOccupancyPct;
  Finding f = StartFinding(options.catalog.Spec(kNoTensorCores), Confidence::kMedium);
  f.step_ns = static_cast<DurationNs>(a.total_ns);
  f.recoverable_ns_per_step = static_cast<DurationNs>(saved);
  f.severity = SeverityForShare(100 * saved / a.total_ns, options.bands);
  AddEvidence(f, Metric{"profile.fp32_simt_gemm_pct", MetricScope::Rank(), a.fp32_simt_pct, "%"},
              ">", min_share.value, &min_share);
  AddEvidence(f,
              Metric{"profile.fp32_simt_gemm_sm_pct", MetricScope::Rank(), a.fp32_simt_sm_pct, "%"},
              "", 0, nullptr);
  AddEvidence(f,
              Metric{"profile.fp32_simt_gemm_occupancy_pct", MetricScope::Rank(),
                     a.fp32_simt_occupancy_pct, "%"},
              "", 0, nullptr);
  for (const ProfiledKernelGroup& g : a.groups) {
    if (g.math != ProfiledMathPath::kFp32Simt || f.top_events.size() >= options.max_events)
      continue;
    f.top_events.push_back(fmt::format("{} x{}: {} ({:.0f}%), SM {:.0f}%, occupancy {:.0f}%",
                                       ShortName(g.name), g.launches, Us(g.total_ns), g.time_pct,
                                       g.roofline.sm_pct.value_or(0),
                                       g.roofline.achieved_occupancy_pct.value_or(0)));
  }
  f.fixes = TensorCoreFixes(a.support);
  f.title = fmt::format(
      "{:.0f}% of the profiled kernel time ({} of {}) is GEMM math on the FP32 SIMT pipes with no "
      "tensor-pipe instruction; {}",
      a.fp32_simt_pct, Us(a.fp32_simt_ns), Us(a.total_ns),
      small ? fmt::format("but these GEMMs keep the SMs only {:.0f}% busy at {:.0f}% occupancy "
                          "(too small to fill the GPU), so TF32/bf16 would save about {}: "
                          "batch or fuse them first",
                          a.fp32_simt_sm_pct, a.fp32_simt_occupancy_pct, Us(saved))
            : fmt::format("tensor cores (TF32/bf16, or fp16 before Ampere) would save about {}",
                          Us(saved)));
  RecordOutcome(d.outcomes, OutcomeMerge::kPerDevice, kNoTensorCores, AssessStatus::kAssessed, true,
                "");
  d.findings.push_back(std::move(f));
}

// The kernels by time with their measured bound and Nsight Compute's own findings beside.
void KernelNotes(const ProfileAloneResult& a, Diagnosis& d) {
  for (size_t i = 0; i < a.groups.size() && i < kNotedKernels; ++i) {
    const ProfiledKernelGroup& g = a.groups[i];
    const KernelRoofline& r = g.roofline;
    std::string note = fmt::format(
        "kernel {} x{}: {}{}: {} (SM {:.0f}%, memory {:.0f}%, occupancy {:.0f}%{}), math {}",
        ShortName(g.name), g.launches, a.timed ? Us(g.total_ns) : "time not measured",
        a.timed ? fmt::format(" ({:.0f}%)", g.time_pct) : "", RooflineClassName(r.roofline_class),
        r.sm_pct.value_or(0), r.memory_pct.value_or(0), r.achieved_occupancy_pct.value_or(0),
        r.waves_per_sm ? fmt::format(", {:.2f} waves", *r.waves_per_sm) : "",
        ProfiledMathPathName(g.math));
    if (!g.ncu_rules.empty()) note += "; Nsight Compute: " + g.ncu_rules.front();
    d.notes.push_back(std::move(note));
  }
}

}  // namespace

Diagnosis DiagnoseProfileAlone(const ProfileAloneResult& profile, const DiagnoseOptions& options) {
  Diagnosis d;
  d.steps_synthesized = true;
  d.kernel_total_only = true;
  d.step_count = 1;
  d.step_ns = static_cast<DurationNs>(profile.total_ns);
  NoTensorCores(profile, options, d);
  d.notes.push_back(fmt::format(
      "Nsight Compute export alone: {} profiled launch(es){}; per-kernel measurements decide "
      "bounds and math paths, while idle, launch, input and communication need a trace",
      profile.kernels,
      profile.timed ? fmt::format(", {} of measured kernel time", Us(profile.total_ns))
                    : std::string(", without durations")));
  KernelNotes(profile, d);
  RankFindings(d.findings);
  return d;
}

}  // namespace gpuwhy
