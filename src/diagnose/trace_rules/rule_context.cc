#include "diagnose/trace_rules/rule_context.h"

#include "diagnose/outcome_recorder.h"

#include <algorithm>
#include <map>

namespace gpuwhy {
namespace {

Severity Raise(Severity a, Severity b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

Confidence Lower(Confidence c) {
  return c == Confidence::kHigh ? Confidence::kMedium : Confidence::kLow;
}

// Whether a data-quality warning or error could change this finding. GPU ops without a launch
// call only blur launch statistics and which host activity a gap belongs to: a finding priced
// on kernel time alone (a compute estimate with no idle part) does not rest on either.
bool QualityLowers(const DataQualityResult& quality, const Finding& f) {
  const bool kernel_time_only =
      f.bottleneck_class == BottleneckClass::kCompute && f.idle_recoverable_ns_per_step == 0;
  for (const DataQualityIssue& issue : quality.issues) {
    if (issue.severity == QualitySeverity::kInfo) continue;
    if (kernel_time_only && issue.id == "gpu_op_without_launch") continue;
    return true;
  }
  return false;
}

}  // namespace

RuleContext::RuleContext(const Trace& t, const TraceAnalysis& a, const DiagnoseOptions& o,
                         Diagnosis& d)
    : trace(t), analysis(a), options(o), catalog(o.catalog), metrics(a.metrics), out(d) {
  const StepBreakdownResult& steps = a.steps;
  step_count = static_cast<int64_t>(steps.steps.size());
  step_ns = static_cast<DurationNs>(steps.mean_total_ns);
  window = steps.extents.Window();
  if (step_count == 0 && a.utilization.valid) {
    // No analysable step: the utilization window (trace span) is the one "step".
    window = a.utilization.window;
    step_ns = window.length();
    step_count = window.length() > 0 ? 1 : 0;
  }
  device_count = std::max<int>(1, static_cast<int>(t.active_devices().size()));
  const IdleTotals& idle = a.idle_gaps.rank;
  if (idle.window_ns > 0 && step_ns > 0) {
    double scale = static_cast<double>(step_ns) / static_cast<double>(idle.window_ns);
    for (size_t c = 0; c < kIdleCauseCount; ++c) idle_left_[c] = idle.ns[c] * scale;
  }
  busy = ComputeBusyStats(t, a, window, o.max_events);
}

double RuleContext::PctOfStep(double ns_per_step) const {
  return step_ns > 0 ? 100.0 * ns_per_step / static_cast<double>(step_ns) : 0;
}

double RuleContext::PerStep(double total_ns) const {
  if (step_count <= 0) return 0;
  return total_ns / static_cast<double>(step_count) / device_count;
}

double RuleContext::ClaimIdle(IdleCause cause, double want_ns) {
  double& left = idle_left_[static_cast<size_t>(cause)];
  double got = std::clamp(want_ns, 0.0, left);
  left -= got;
  idle_claimed_ += got;
  return got;
}

Finding RuleContext::Start(const RuleSpec& spec) {
  claimed_at_start_ = idle_claimed_;
  Finding f = StartFinding(spec, Confidence::kHigh);
  f.step_ns = step_ns;
  f.rank = trace.rank.rank;
  return f;
}

void RuleContext::Emit(Finding f, std::initializer_list<TitleArg> args, Severity floor) {
  f.idle_recoverable_ns_per_step = std::min(
      f.recoverable_ns_per_step, static_cast<DurationNs>(idle_claimed_ - claimed_at_start_));
  claimed_at_start_ = idle_claimed_;
  double ms = NsToMs(f.recoverable_ns_per_step);
  double pct = PctOfStep(static_cast<double>(f.recoverable_ns_per_step));
  std::vector<TitleArg> all = {{"ms", ms}, {"pct", pct}};
  all.insert(all.end(), args.begin(), args.end());
  f.title = FormatTitle(catalog.Spec(f.id), all);
  if (f.recoverable_ns_per_step > 0) f.severity = SeverityForShare(pct, options.bands);
  f.severity = Raise(f.severity, floor);
  if (QualityLowers(analysis.data_quality, f) || out.steps_synthesized)
    f.confidence = Lower(f.confidence);
  if (f.ranges.size() > options.max_ranges) f.ranges.resize(options.max_ranges);
  if (f.top_events.size() > options.max_events) f.top_events.resize(options.max_events);
  Outcome(f.id, AssessStatus::kAssessed, true);
  out.findings.push_back(std::move(f));
}

void RuleContext::Outcome(std::string_view rule_id, AssessStatus status, bool fired,
                          std::string note) {
  RecordOutcome(out.outcomes, OutcomeMerge::kLatest, rule_id, status, fired, std::move(note));
}

void RuleContext::AddEvidence(Finding& f, std::string id, double value, std::string unit,
                              const char* comparison, double threshold, const RuleParam* param) {
  gpuwhy::AddEvidence(f, Metric{std::move(id), MetricScope{}, value, std::move(unit)}, comparison,
                      threshold, param);
}

void RuleContext::AddMetricEvidence(Finding& f, std::string_view id, const char* comparison,
                                    double threshold, const RuleParam* param,
                                    MetricScope scope) const {
  const Metric* m = metrics.Find(id, scope);
  if (m == nullptr) return;
  gpuwhy::AddEvidence(f, *m, comparison, threshold, param);
}

void RuleContext::AddIdleEvidence(Finding& f, IdleCause cause) const {
  std::map<std::string, DurationNs> by_name;
  for (const IdleGap& gap : analysis.idle_gaps.top_gaps) {
    for (const IdlePiece& p : gap.pieces) {
      if (p.cause != cause) continue;
      f.ranges.push_back(
          {"idle_gap", gap.device, -1, p.range.start, p.range.end,
           std::string(IdleCauseName(cause)) + (p.host_name.empty() ? "" : ": " + p.host_name)});
      if (!p.host_name.empty()) by_name[p.host_name] += p.range.length();
    }
  }
  std::stable_sort(f.ranges.begin(), f.ranges.end(),
                   [](const auto& a, const auto& b) { return a.end - a.start > b.end - b.start; });
  std::vector<std::pair<std::string, DurationNs>> names(by_name.begin(), by_name.end());
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (auto& [name, ns] : names) f.top_events.push_back(name);
}

}  // namespace gpuwhy
