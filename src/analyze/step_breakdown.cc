#include "analyze/step_breakdown.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyze/host_activity.h"
#include "analyze/sorted_runs.h"
#include "base/median.h"

namespace gpuwhy {
namespace {

using Category = StepCategory;

size_t Index(Category c) { return static_cast<size_t>(c); }

// One category's intervals as runs already in start order (GPU ops; each host thread's
// rows), so building its set merges runs instead of sorting every interval.
struct Runs {
  std::vector<Interval> intervals;
  std::vector<size_t> bounds{0};  // run starts; the last run ends at intervals.size()
  void Cut() {
    if (intervals.size() > bounds.back()) bounds.push_back(intervals.size());
  }
  std::vector<Interval> Merged() && {
    Cut();
    // Runs out of order stay correct (the set sorts what is not in order), only slower.
    MergeSortedRuns(intervals, std::move(bounds),
                    [](const Interval& a, const Interval& b) { return a.start < b.start; });
    return std::move(intervals);
  }
};

// The intervals each category would claim on its own, over the whole trace (all devices
// and all host threads of the process, as the plugin merges them).
std::array<std::vector<Interval>, kStepCategoryCount> RoleIntervals(const AnalysisInput& input,
                                                                    const HostActivity& host) {
  const Trace& trace = input.trace;
  std::array<Runs, kStepCategoryCount> roles;
  const GpuOpTable& ops = trace.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    Interval iv{ops.start[i], ops.end[i]};
    if (ops.kind[i] == GpuOpKind::kMemcpy) {
      roles[Index(Category::kMemcpy)].intervals.push_back(iv);
      continue;
    }
    if (ops.kind[i] == GpuOpKind::kMemset) {
      roles[Index(Category::kMemset)].intervals.push_back(iv);
      continue;
    }
    // A kernel is communication when named as one (NCCL/RCCL) or launched under a
    // collective op; the plugin only has the second rule (by external id).
    bool comm = input.timelines.hta_type[i] == HtaKernelType::kCommunication;
    if (!comm && ops.correlation[i] != kNoValue) {
      CpuSliceId launch = LaunchOf(input, i);
      comm = launch.valid() && host.under_collective[launch.value];
    }
    roles[Index(comm ? Category::kCommunication : Category::kKernel)].intervals.push_back(iv);
  }
  const CpuSliceTable& t = trace.cpu_slices;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i == 0 || t.thread[i] != t.thread[i - 1]) {
      for (Runs& r : roles) r.Cut();  // rows are in start order within each thread
    }
    Interval iv{t.start[i], t.end[i]};
    uint8_t r = host.roles[i];
    switch (t.kind[i]) {
      case CpuSliceKind::kRuntime:
      case CpuSliceKind::kDriver: roles[Index(Category::kRuntime)].intervals.push_back(iv); break;
      case CpuSliceKind::kOp:
      case CpuSliceKind::kUserAnnotation:
        if (r & kRoleProfilerStep) break;
        if (r & kRoleDataLoader) {
          roles[Index(Category::kDataLoader)].intervals.push_back(iv);
        } else if (r & kRolePluginCollective) {
          roles[Index(Category::kCommunication)].intervals.push_back(iv);
        } else {
          roles[Index(Category::kCpuExec)].intervals.push_back(iv);
        }
        break;
      case CpuSliceKind::kPython:  // python_function frames: not CPU Exec in the plugin
      case CpuSliceKind::kOther: break;
    }
  }
  std::array<std::vector<Interval>, kStepCategoryCount> merged;
  for (size_t c = 0; c < kStepCategoryCount; ++c) merged[c] = std::move(roles[c]).Merged();
  return merged;
}

void EmitMetrics(const StepBreakdownResult& r, MetricSet& metrics) {
  metrics.Add(metric::kStepCount, MetricScope::Rank(), static_cast<double>(r.steps.size()));
  metrics.Add(metric::kStepExcludedCount, MetricScope::Rank(),
              static_cast<double>(r.extents.excluded.size()));
  for (const StepCosts& s : r.steps) {
    MetricScope scope = MetricScope::Step(s.number);
    metrics.Add(metric::kStepTimeMs, scope, NsToMs(s.total_ns));
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
      std::string_view name = StepCategoryName(static_cast<Category>(c));
      metrics.Add(metric::kStepCategoryMs, name, scope, NsToMs(s.ns[c]));
      double pct = s.total_ns > 0 ? 100.0 * s.ns[c] / s.total_ns : 0;
      metrics.Add(metric::kStepCategoryPct, name, scope, pct);
    }
  }
  MetricScope rank = MetricScope::Rank();
  metrics.Add(metric::kStepTimeMs, rank, r.mean_total_ns / kNsPerMs);
  for (size_t c = 0; c < kStepCategoryCount; ++c) {
    std::string_view name = StepCategoryName(static_cast<Category>(c));
    metrics.Add(metric::kStepCategoryMs, name, rank, r.mean_ns[c] / kNsPerMs);
    double pct = r.mean_total_ns > 0 ? 100.0 * r.mean_ns[c] / r.mean_total_ns : 0;
    metrics.Add(metric::kStepCategoryPct, name, rank, pct);
  }
  if (!r.extents.synthesized) metrics.Add(metric::kStepHostTimeMs, rank, r.mean_host_ns / kNsPerMs);
  metrics.Add(metric::kStepTimeMinMs, rank, NsToMs(r.min_ns));
  metrics.Add(metric::kStepTimeMedianMs, rank, NsToMs(r.median_ns));
  metrics.Add(metric::kStepTimeMaxMs, rank, NsToMs(r.max_ns));
}

}  // namespace

std::string_view StepCategoryName(StepCategory c) {
  switch (c) {
    case Category::kKernel: return "kernel";
    case Category::kMemcpy: return "memcpy";
    case Category::kMemset: return "memset";
    case Category::kCommunication: return "communication";
    case Category::kRuntime: return "runtime";
    case Category::kDataLoader: return "dataloader";
    case Category::kCpuExec: return "cpu_exec";
    case Category::kOther: return "other";
  }
  return "other";
}

StepBreakdownResult ComputeStepBreakdown(const AnalysisInput& input, MetricSet& metrics) {
  StepBreakdownResult r;
  r.extents = ComputeStepExtents(input.trace, input.options, input.warmup);
  if (r.extents.steps.empty() || r.extents.Window().length() <= 0) {
    r.not_applicable.push_back(
        "step breakdown: the trace has no timed events, no step to break down");
    return r;
  }
  HostActivity scratch;
  const HostActivity& host = SharedHostActivity(input, scratch);
  auto role_intervals = RoleIntervals(input, host);

  // Exclusive claims in priority order: each category takes what is left of the steps.
  std::vector<Interval> windows;
  for (const StepExtent& s : r.extents.steps) windows.push_back(s.window);
  IntervalSet slots = IntervalSet::FromUnsorted(windows);
  std::array<IntervalSet, kStepCategoryCount> claimed;
  for (size_t c = 0; c + 1 < kStepCategoryCount; ++c) {
    claimed[c] = IntervalSet::FromUnsorted(std::move(role_intervals[c])).Intersect(slots);
    slots = slots.Subtract(claimed[c]);
  }
  claimed[Index(Category::kOther)] = slots;

  std::vector<DurationNs> totals;
  for (const StepExtent& s : r.extents.steps) {
    StepCosts costs{s.number, s.window, s.window.length(), {}};
    for (size_t c = 0; c < kStepCategoryCount; ++c)
      costs.ns[c] = claimed[c].CoveredLength(s.window);
    r.steps.push_back(costs);
    totals.push_back(costs.total_ns);
    r.mean_total_ns += costs.total_ns;
    r.mean_host_ns += static_cast<double>(s.host.length());
    for (size_t c = 0; c < kStepCategoryCount; ++c) r.mean_ns[c] += costs.ns[c];
  }
  double n = static_cast<double>(r.steps.size());
  r.mean_total_ns /= n;
  r.mean_host_ns /= n;
  for (double& v : r.mean_ns) v /= n;
  r.min_ns = *std::min_element(totals.begin(), totals.end());
  r.max_ns = *std::max_element(totals.begin(), totals.end());
  r.median_ns = MedianOf(totals);

  std::vector<const StepCosts*> by_time;
  for (const StepCosts& s : r.steps) by_time.push_back(&s);
  std::stable_sort(by_time.begin(), by_time.end(), [](const StepCosts* a, const StepCosts* b) {
    return a->total_ns > b->total_ns;
  });
  if (by_time.size() > input.options.top_n) by_time.resize(input.options.top_n);
  for (const StepCosts* s : by_time) {
    r.slowest_steps.push_back(
        {"step", -1, -1, s->window.start, s->window.end,
         fmt::format("ProfilerStep#{}: {:.3f} ms", s->number, NsToMs(s->total_ns))});
  }
  if (r.extents.synthesized)
    r.not_applicable.push_back("no ProfilerStep: per-step numbers describe the whole trace");
  EmitMetrics(r, metrics);
  return r;
}

}  // namespace gpuwhy
