#include "analyze/data_quality.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "analyze/kernel_table.h"
#include "analyze/step_breakdown.h"

namespace gpuwhy {
namespace {

// A last step shorter than this share of the median of the others was cut by the profiler.
constexpr double kShortLastStepRatio = 0.5;
// Above this share of GPU ops without a launch, per-launch numbers miss real work.
constexpr double kOrphanWarningShare = 0.01;
// Above this share of kernel time in names the kernel table cannot read, class and tensor-core
// shares miss work worth naming (issue 16: no unknown kernel above 1% without a note).
constexpr double kUnclassifiedNoteShare = 0.01;

void CheckSteps(const Trace& trace, std::vector<DataQualityIssue>& out) {
  const StepTable& steps = trace.steps;
  if (steps.synthesized) {
    out.push_back(
        {"steps_synthesized", QualitySeverity::kWarning,
         "no ProfilerStep in the trace: one step spans the whole trace; per-step numbers are "
         "not per training step (use torch.profiler.schedule and prof.step())",
         1});
    return;
  }
  if (steps.size() < 2) {
    out.push_back({"single_step", QualitySeverity::kInfo,
                   "only one ProfilerStep was captured: step-to-step variation cannot be assessed",
                   1});
    return;
  }
  const StepTable::Row& last = steps.rows.back();
  std::vector<DurationNs> others;
  for (size_t i = 0; i + 1 < steps.size(); ++i)
    others.push_back(steps.rows[i].host_end - steps.rows[i].host_start);
  std::nth_element(others.begin(), others.begin() + others.size() / 2, others.end());
  DurationNs median = others[others.size() / 2];
  DurationNs last_duration = last.host_end - last.host_start;
  // The host recording of the last step ends before its GPU work does only when the
  // profiler stopped the step early.
  TimeNs host_end = std::numeric_limits<TimeNs>::min();
  const CpuSliceTable& c = trace.cpu_slices;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.kind[i] != CpuSliceKind::kOther) host_end = std::max(host_end, c.end[i]);
  }
  bool short_host =
      static_cast<double>(last_duration) < kShortLastStepRatio * static_cast<double>(median);
  bool beyond = last.gpu_op_count > 0 && last.device_end > host_end;
  if (short_host || beyond) {
    out.push_back(
        {"last_step_cut", QualitySeverity::kWarning,
         fmt::format(
             "the last step (ProfilerStep#{}) looks cut short: host {:.3f} ms vs median {:.3f} ms "
             "of the others{}; HTA drops it by default",
             last.number, NsToMs(last_duration), NsToMs(median),
             beyond ? ", and its GPU work outlives the host recording" : ""),
         1});
  }
}

void CheckStats(const Trace& trace, std::vector<DataQualityIssue>& out) {
  const DataProblems& problems = trace.problems;
  int64_t orphans = problems.Get(DataProblem::kGpuOpWithoutLaunch);
  if (orphans > 0) {
    double share = static_cast<double>(orphans) /
                   static_cast<double>(std::max<size_t>(1, trace.gpu_ops.size()));
    out.push_back(
        {std::string(GetDataProblemInfo(DataProblem::kGpuOpWithoutLaunch).id),
         share > kOrphanWarningShare ? QualitySeverity::kWarning : QualitySeverity::kInfo,
         fmt::format(
             "{} GPU ops ({:.1f}%) have no launching runtime/driver call: launch statistics "
             "and step attribution miss them",
             orphans, 100.0 * share),
         orphans});
  }
  // Named after the data problem they read; the severity is the analysis' own.
  struct Check {
    DataProblem stat;
    QualitySeverity severity;
    const char* what;
  };
  static const Check kChecks[] = {
      {DataProblem::kTruncated, QualitySeverity::kError,
       "the input ends mid-document: events after the cut are lost and the last step is "
       "incomplete"},
      {DataProblem::kOverlappingStreamOps, QualitySeverity::kWarning,
       "GPU ops overlap on one stream (a stream runs one op at a time): clock or attribution "
       "problems"},
      {DataProblem::kClockAnomaly, QualitySeverity::kInfo,
       "instants lie far outside the trace span (e.g. Record Window End); they are ignored"},
      {DataProblem::kImproperNesting, QualitySeverity::kInfo,
       "CPU slices partially overlap their parent on one thread; call-site attribution may be off"},
      {DataProblem::kMalformedEvent, QualitySeverity::kWarning, "events could not be parsed"},
      {DataProblem::kMissingField, QualitySeverity::kWarning, "events lacked ts/dur/ph"},
      {DataProblem::kBadTimestamp, QualitySeverity::kWarning, "events had unusable timestamps"},
      {DataProblem::kNegativeDuration, QualitySeverity::kWarning, "events had negative durations"},
      {DataProblem::kDuplicateCorrelation, QualitySeverity::kInfo,
       "launch calls share a correlation id; the first one is used"},
  };
  for (const Check& c : kChecks) {
    int64_t n = problems.Get(c.stat);
    if (n == 0) continue;
    QualitySeverity severity = c.severity;
    // A few overlapping ops among thousands (clock rounding at the edges of a trace) change no
    // number: a warning from the same 1% share as GPU ops without a launch.
    if (c.stat == DataProblem::kOverlappingStreamOps &&
        static_cast<double>(n) <=
            kOrphanWarningShare * static_cast<double>(std::max<size_t>(1, trace.gpu_ops.size())))
      severity = QualitySeverity::kInfo;
    out.push_back({std::string(GetDataProblemInfo(c.stat).id), severity,
                   fmt::format("{} ({})", c.what, n), n});
  }
}

void CheckContent(const Trace& trace, std::vector<DataQualityIssue>& out) {
  if (trace.gpu_ops.size() == 0) {
    out.push_back({"cpu_only", QualitySeverity::kInfo,
                   "the trace has no GPU ops: only host-side analyses apply (profile with "
                   "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])",
                   1});
    return;
  }
  bool launches = std::any_of(
      trace.cpu_slices.kind.begin(), trace.cpu_slices.kind.end(),
      [](CpuSliceKind k) { return k == CpuSliceKind::kRuntime || k == CpuSliceKind::kDriver; });
  if (!launches) {
    out.push_back(
        {"no_runtime_events", QualitySeverity::kWarning,
         "the trace has GPU ops but no runtime/driver calls: launch, sync and step attribution "
         "cannot be computed",
         1});
  }
}

// Kernels no row of the kernel table recognises: their time is reported as unknown (never as
// fp32 without tensor cores), and above 1% of kernel time the top names are named here.
void CheckKernelNames(const Trace& trace, std::vector<DataQualityIssue>& out) {
  const GpuOpTable& ops = trace.gpu_ops;
  std::unordered_map<uint32_t, bool> recognised;
  std::unordered_map<uint32_t, DurationNs> unknown_ns;
  DurationNs total = 0, unknown = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel) continue;
    DurationNs d = ops.end[i] - ops.start[i];
    total += d;
    auto [it, inserted] = recognised.try_emplace(ops.name[i].value, true);
    if (inserted)
      it->second = DescribeKernel(GpuOpKind::kKernel, trace.Str(ops.name[i])).recognised;
    if (it->second) continue;
    unknown += d;
    unknown_ns[ops.name[i].value] += d;
  }
  if (total <= 0 || static_cast<double>(unknown) <= kUnclassifiedNoteShare * total) return;
  std::vector<std::pair<std::string_view, DurationNs>> top;
  for (const auto& [id, ns] : unknown_ns) top.emplace_back(trace.Str(StringId(id)), ns);
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::string names;
  for (size_t i = 0; i < top.size() && i < 3; ++i) {
    std::string_view n = top[i].first.substr(0, 80);
    DurationNs ns = top[i].second;
    std::string t = ns < 100 * kNsPerUs ? fmt::format("{:.2f} µs", NsToUs(ns))
                                        : fmt::format("{:.2f} ms", NsToMs(ns));
    names += fmt::format("{}{} ({})", i ? ", " : "", n, t);
  }
  out.push_back(
      {"kernels_unclassified", QualitySeverity::kInfo,
       fmt::format("{:.1f}% of kernel time is in kernels gpuwhy's kernel table does not "
                   "recognise: {}; their class, dtype and tensor-core use are unknown "
                   "(not counted as fp32 without tensor cores)",
                   100.0 * static_cast<double>(unknown) / static_cast<double>(total), names),
       static_cast<int64_t>(top.size())});
}

// The last step ran on into the profiler's stop and flush; the step extents left it out, so
// this is information for the reader, not a doubt about the numbers.
void CheckFlushedLastStep(const AnalysisInput& input, std::vector<DataQualityIssue>& out) {
  StepExtents scratch;
  const StepExtents& e = SharedStepExtents(input, scratch);
  if (e.last_step_flush_ns <= 0 || e.excluded.empty()) return;
  out.push_back({"last_step_flush", QualitySeverity::kInfo,
                 fmt::format("the last step (ProfilerStep#{}) runs on {:.1f} ms after its work, in "
                             "the profiler's own stop and flush: left out of per-step numbers",
                             e.excluded.back(), NsToMs(e.last_step_flush_ns)),
                 1});
}

}  // namespace

std::string_view QualitySeverityName(QualitySeverity severity) {
  switch (severity) {
    case QualitySeverity::kInfo: return "info";
    case QualitySeverity::kWarning: return "warning";
    case QualitySeverity::kError: return "error";
  }
  return "?";
}

DataQualityResult ComputeDataQuality(const AnalysisInput& input, MetricSet& metrics) {
  const Trace& trace = input.trace;
  DataQualityResult r;
  CheckContent(trace, r.issues);
  CheckSteps(trace, r.issues);
  CheckStats(trace, r.issues);
  CheckKernelNames(trace, r.issues);
  CheckFlushedLastStep(input, r.issues);
  std::stable_sort(r.issues.begin(), r.issues.end(),
                   [](const DataQualityIssue& a, const DataQualityIssue& b) {
                     return static_cast<int>(a.severity) > static_cast<int>(b.severity);
                   });
  int64_t warnings = 0, errors = 0;
  for (const DataQualityIssue& issue : r.issues) {
    metrics.Add(metric::kQualityIssue, issue.id, MetricScope::Rank(),
                static_cast<double>(issue.count));
    warnings += issue.severity == QualitySeverity::kWarning;
    errors += issue.severity == QualitySeverity::kError;
  }
  r.reliable = warnings == 0 && errors == 0;
  metrics.Add(metric::kQualityIssues, MetricScope::Rank(), static_cast<double>(r.issues.size()));
  metrics.Add(metric::kQualityWarnings, MetricScope::Rank(), static_cast<double>(warnings));
  metrics.Add(metric::kQualityErrors, MetricScope::Rank(), static_cast<double>(errors));
  metrics.Add(metric::kQualityStepCount, MetricScope::Rank(),
              static_cast<double>(trace.steps.size()));
  return r;
}

}  // namespace gpuwhy
