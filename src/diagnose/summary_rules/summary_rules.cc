// Rules over a profiler's summary report. They evaluate rules the trace families specify
// (compute.no_tensor_cores, quality.warmup_dominated) on the totals a summary holds, so the
// finding, its fixes and its thresholds are the same whatever the input; the reference time is
// the report's kernel time, since a summary has no step (the diagnosis says so).
#include <fmt/format.h>

#include "diagnose/diagnose_summary.h"
#include "diagnose/finding_builder.h"
#include "diagnose/outcome_recorder.h"
#include "diagnose/shared_fixes.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kWarmup = "quality.warmup_dominated";

struct SummaryRules {
  const ProfileSummary& summary;
  const ProfileSummaryAnalysis& a;
  const DiagnoseOptions& options;
  Diagnosis& d;

  const Catalog& catalog() const { return options.catalog; }
  void Outcome(std::string_view id, AssessStatus status, bool fired, std::string note = "") {
    RecordOutcome(d.outcomes, OutcomeMerge::kPerDevice, id, status, fired, std::move(note));
  }
  void Evidence(Finding& f, const MetricDecl& decl, const char* cmp, double threshold,
                const RuleParam* param) const {
    const Metric* m = a.metrics.Find(decl.id);
    if (m != nullptr) AddEvidence(f, *m, cmp, threshold, param);
  }
};

// A capture of one iteration: the first iteration pays CUDA context set-up, lazy module
// loading and autotuning, so its totals describe start-up, not training.
bool OneIteration(SummaryRules& r) {
  if (!r.summary.dlprof || r.summary.dlprof->iterations < 0) return false;
  const DlprofTotals& t = *r.summary.dlprof;
  if (t.iterations > 1) {
    r.Outcome(kWarmup, AssessStatus::kAssessed, false);
    return false;
  }
  Finding f = StartFinding(r.catalog().Spec(kWarmup), Confidence::kHigh);
  r.Evidence(f, metric::kSummaryIterations, "<=", 1, nullptr);
  r.Evidence(f, metric::kSummaryWallMs, "", 0, nullptr);
  r.Evidence(f, metric::kSummaryGpuBusyPct, "", 0, nullptr);
  f.title = fmt::format(
      "the capture holds {} iteration ({:.0f} ms wall clock, {:.2f} ms of GPU kernels): the "
      "first iteration pays CUDA set-up and autotuning, so no steady state is in it",
      t.iterations, NsToMs(t.wall_ns), NsToMs(t.kernel_ns < 0 ? 0 : t.kernel_ns));
  f.fixes.front().code =
      "profile iterations after the first few: torch.profiler.schedule(wait=5, warmup=2, "
      "active=5), or start the DLProf range a few iterations in";
  r.Outcome(kWarmup, AssessStatus::kAssessed, true);
  r.d.findings.push_back(std::move(f));
  return true;
}

void NoTensorCores(SummaryRules& r) {
  if (r.a.kernel_rows == 0) {
    r.Outcome(kNoTensorCores, AssessStatus::kNotAssessed, false,
              "the report lists no kernels (dlprof_kernel.csv or an nsys kernel summary has them)");
    return;
  }
  const RuleParam& min_share = r.catalog().Get(kNoTensorCoresMinSharePct);
  const RuleParam& speedup = r.catalog().Get(kNoTensorCoresExpectedSpeedup);
  const double total = static_cast<double>(r.a.kernel_ns);
  const double share = total > 0 ? 100.0 * r.a.tc_eligible_without_tc_ns / total : 0;
  if (share <= min_share.value) {
    r.Outcome(kNoTensorCores, AssessStatus::kAssessed, false);
    return;
  }
  const RuleSpec& spec = r.catalog().Spec(kNoTensorCores);
  Finding f = StartFinding(spec, Confidence::kHigh);
  const double saved =
      speedup.value > 1 ? r.a.tc_eligible_without_tc_ns * (1 - 1 / speedup.value) : 0;
  f.step_ns = r.a.kernel_ns;
  f.recoverable_ns_per_step = static_cast<DurationNs>(saved);
  f.severity = SeverityForShare(100.0 * saved / total, r.options.bands);
  r.Evidence(f, metric::kSummaryWithoutTcPct, ">", min_share.value, &min_share);
  r.Evidence(f, metric::kSummaryTensorCorePct, "", 0, nullptr);
  for (const SummaryTopKernel& k : r.a.top) {
    if (f.top_events.size() >= r.options.max_events) break;
    if (IsTensorCoreEligible(k.kernel_class) && !k.tensor_cores) f.top_events.push_back(k.name);
  }
  LowPrecisionSupport support = r.summary.dlprof ? LowPrecisionOfDevice(r.summary.dlprof->gpu_name)
                                                 : LowPrecisionSupport::kUnknown;
  if (support == LowPrecisionSupport::kUnknown) {
    for (const SummaryKernel& k : r.summary.kernels)
      support = LaterLowPrecision(support, LowPrecisionOfKernel(k.name));
  }
  f.fixes = TensorCoreFixes(support);
  const TitleArg args[] = {{"share", share}};
  f.title = FormatTitle(spec, args);
  r.Outcome(kNoTensorCores, AssessStatus::kAssessed, true);
  r.d.findings.push_back(std::move(f));
}

}  // namespace

Diagnosis DiagnoseProfileSummary(const ProfileSummary& summary,
                                 const ProfileSummaryAnalysis& analysis,
                                 const DiagnoseOptions& options) {
  Diagnosis d;
  SummaryRules r{summary, analysis, options, d};
  d.steps_synthesized = true;
  d.kernel_total_only = true;
  d.step_count = 1;
  d.step_ns = analysis.kernel_ns;
  if (!OneIteration(r)) NoTensorCores(r);
  d.notes.push_back(fmt::format(
      "{}: totals without a timeline; times per step are over the report's {:.1f} ms of kernel "
      "time, and idle, launch, input and communication cannot be told from it",
      SummaryToolName(summary.tool), NsToMs(analysis.kernel_ns)));
  return d;
}

}  // namespace gpuwhy
