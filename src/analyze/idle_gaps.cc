#include "analyze/idle_gaps.h"

#include "analyze/warmup.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "analyze/host_activity.h"
#include "analyze/idle_host_sets.h"
#include "analyze/step_breakdown.h"

namespace gpuwhy {
namespace {

size_t Index(IdleCause c) { return static_cast<size_t>(c); }

// An op launched into an empty queue starts some microseconds after its launch call returns
// (and Kineto aligns GPU to CPU clocks to within a few): idle time that short after a launch
// is the launch's own cost, not a wait on something else.
constexpr DurationNs kQueuedLaunchLatencyNs = 50 * kNsPerUs;
// Back-to-back queued kernels start 1-5 µs apart (the GPU front end's own gap): that is the
// cost of many kernels, which fusing cuts, not a wait. HTA counts gaps under 30 µs between
// kernels as kernel_wait for the same reason; shorter queued pieces fall to the host causes.
constexpr DurationNs kMinQueuedWaitNs = 30 * kNsPerUs;

IntervalSet DropShort(const IntervalSet& set, DurationNs min_length) {
  std::vector<Interval> kept;
  for (const Interval& iv : set.intervals()) {
    if (iv.length() >= min_length) kept.push_back(iv);
  }
  return IntervalSet::FromUnsorted(std::move(kept));
}

// Gaps that contain a step boundary (host or device side) strictly inside them.
IntervalSet BoundaryGaps(const IntervalSet& gaps, const StepExtents& extents) {
  std::vector<TimeNs> points;
  for (size_t i = 0; i + 1 < extents.steps.size(); ++i) {
    points.push_back(extents.steps[i].window.end);
    points.push_back(extents.steps[i].host.end);
    points.push_back(extents.steps[i + 1].host.start);
  }
  std::sort(points.begin(), points.end());
  std::vector<Interval> out;
  for (const Interval& g : gaps.intervals()) {
    auto it = std::upper_bound(points.begin(), points.end(), g.start);
    if (it != points.end() && *it < g.end) out.push_back(g);
  }
  return IntervalSet::FromUnsorted(std::move(out));
}

// GPU-side waits on this device (a stream waiting on another stream's event).
IntervalSet DeviceWaits(const Trace& trace, int32_t device) {
  std::vector<Interval> waits;
  for (const GpuSyncTable::Row& row : trace.gpu_syncs.rows) {
    if (row.device != device) continue;
    bool wait = row.wait_on_stream != kNoValue ||
                trace.Str(row.name).find("Wait") != std::string_view::npos;
    if (wait) waits.push_back({row.start, row.end});
  }
  return IntervalSet::FromUnsorted(std::move(waits));
}

// Per GPU op of this device, from its launch call's end (plus the launch latency a queue
// that was empty pays) to the op's start: the op was issued and waiting, so the host was
// not what the device waited for. Walks the device's own rows, not every op per device.
IntervalSet QueuedWork(const AnalysisInput& input, const DeviceTimeline& timeline) {
  const Trace& trace = input.trace;
  const GpuOpTable& ops = trace.gpu_ops;
  std::vector<Interval> queued;
  for (uint32_t i : timeline.op_rows) {
    if (ops.correlation[i] == kNoValue) continue;
    CpuSliceId launch = LaunchOf(input, i);
    if (!launch.valid()) continue;
    TimeNs from = trace.cpu_slices.end[launch.value] + kQueuedLaunchLatencyNs;
    if (from < ops.start[i]) queued.push_back({from, ops.start[i]});
  }
  return IntervalSet::FromUnsorted(std::move(queued));
}

int64_t CountStreamWaitCalls(const Trace& trace) {
  const CpuSliceTable& slices = trace.cpu_slices;
  // Runtime names repeat millions of times: test each distinct one once (-1 untested).
  std::vector<int8_t> is_wait(trace.strings.size(), -1);
  int64_t n = 0;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices.kind[i] != CpuSliceKind::kRuntime && slices.kind[i] != CpuSliceKind::kDriver)
      continue;
    StringId name = slices.name[i];
    if (!name.valid() || name.value >= is_wait.size()) continue;
    int8_t& known = is_wait[name.value];
    if (known < 0) known = trace.Str(name).find("StreamWaitEvent") != std::string_view::npos;
    n += known;
  }
  return n;
}

std::string TopName(const Trace& trace, const IdleHostSets& sets, const IntervalSet& where) {
  std::unordered_map<uint32_t, DurationNs> by_name;
  AccumulateHostNames(trace, sets.segments, where, by_name);
  uint32_t best = 0;
  DurationNs best_ns = 0;
  for (const auto& [name, ns] : by_name) {
    if (ns > best_ns || (ns == best_ns && name < best)) best = name, best_ns = ns;
  }
  return best_ns > 0 ? std::string(trace.Str(StringId(best))) : std::string();
}

struct DeviceWork {
  DeviceIdleGaps summary;
  std::vector<IdleGap> top;  // this device's longest gaps, with pieces
  IntervalSet host_busy;
};

DeviceWork AttributeDevice(const AnalysisInput& input, const DeviceTimeline& timeline,
                           const StepExtents& extents, const IdleHostSets& sets) {
  DeviceWork w;
  w.summary.device = timeline.device;
  w.summary.window = extents.Window();
  IntervalSet gaps = timeline.all_ops.Complement(w.summary.window);
  // In precedence order; a cause may claim at two levels (comm_wait: GPU-side first).
  const std::array<std::pair<IdleCause, IntervalSet>, 9> claims = {{
      {IdleCause::kOneOff, input.warmup != nullptr ? input.warmup->one_off : IntervalSet()},
      {IdleCause::kCommWait, DeviceWaits(input.trace, timeline.device)},
      {IdleCause::kQueuedWait, QueuedWork(input, timeline)},
      {IdleCause::kInputWait, sets.input},
      {IdleCause::kCommWait, sets.comm},
      {IdleCause::kSyncDrain, sets.drain},
      {IdleCause::kLaunchBound, sets.launch},
      {IdleCause::kHostBusy, sets.busy},
      {IdleCause::kStepBoundary, BoundaryGaps(gaps, extents)},
  }};
  std::array<IntervalSet, kIdleCauseCount> pieces;
  IntervalSet rest = gaps;
  for (const auto& [cause, set] : claims) {
    IntervalSet claimed = rest.Intersect(set);
    if (cause == IdleCause::kQueuedWait) claimed = DropShort(claimed, kMinQueuedWaitNs);
    rest = rest.Subtract(claimed);
    pieces[Index(cause)] = pieces[Index(cause)].Union(claimed);
  }
  pieces[Index(IdleCause::kUnknown)] = rest;

  IdleTotals& totals = w.summary.totals;
  totals.window_ns = w.summary.window.length();
  totals.idle_ns = gaps.TotalLength();
  totals.gap_count = static_cast<int64_t>(gaps.intervals().size());
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    totals.ns[c] = pieces[c].TotalLength();
    totals.pieces[c] = static_cast<int64_t>(pieces[c].intervals().size());
  }
  w.host_busy = pieces[Index(IdleCause::kHostBusy)];

  // The longest gaps, then their pieces: binary search in each cause's sorted pieces.
  std::vector<Interval> longest = gaps.intervals();
  size_t n = std::min(longest.size(), input.options.top_n);
  std::partial_sort(longest.begin(), longest.begin() + n, longest.end(),
                    [](const Interval& a, const Interval& b) {
                      return a.length() != b.length() ? a.length() > b.length() : a.start < b.start;
                    });
  longest.resize(n);
  for (const Interval& g : longest) {
    IdleGap gap{timeline.device, g, IdleCause::kUnknown, {}};
    std::array<DurationNs, kIdleCauseCount> by_cause{};
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      IntervalSet in_gap = pieces[c].Clip(g);
      for (const Interval& p : in_gap.intervals()) {
        IntervalSet one = IntervalSet::FromUnsorted({p});
        gap.pieces.push_back({p, static_cast<IdleCause>(c), TopName(input.trace, sets, one)});
        by_cause[c] += p.length();
      }
    }
    std::sort(gap.pieces.begin(), gap.pieces.end(),
              [](const IdlePiece& a, const IdlePiece& b) { return a.range.start < b.range.start; });
    gap.dominant = static_cast<IdleCause>(std::max_element(by_cause.begin(), by_cause.end()) -
                                          by_cause.begin());
    w.top.push_back(std::move(gap));
  }
  w.summary.by_cause = std::move(pieces);
  return w;
}

void AddTotals(IdleTotals& sum, const IdleTotals& t) {
  sum.window_ns += t.window_ns;
  sum.idle_ns += t.idle_ns;
  sum.gap_count += t.gap_count;
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    sum.ns[c] += t.ns[c];
    sum.pieces[c] += t.pieces[c];
  }
}

void EmitTotals(const IdleTotals& t, MetricScope scope, MetricSet& metrics) {
  auto pct = [](DurationNs part, DurationNs whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
  };
  metrics.Add(metric::kIdleTotalMs, scope, NsToMs(t.idle_ns));
  metrics.Add(metric::kIdleTotalPct, scope, pct(t.idle_ns, t.window_ns));
  metrics.Add(metric::kIdleGapCount, scope, static_cast<double>(t.gap_count));
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    std::string_view name = IdleCauseName(static_cast<IdleCause>(c));
    metrics.Add(metric::kIdleCauseMs, name, scope, NsToMs(t.ns[c]));
    metrics.Add(metric::kIdleCausePct, name, scope, pct(t.ns[c], t.window_ns));
    metrics.Add(metric::kIdleCauseSharePct, name, scope, pct(t.ns[c], t.idle_ns));
    metrics.Add(metric::kIdleCauseCount, name, scope, static_cast<double>(t.pieces[c]));
  }
}

void EmitMetrics(const IdleGapsResult& r, MetricSet& metrics) {
  for (const DeviceIdleGaps& d : r.devices)
    EmitTotals(d.totals, MetricScope::Device(d.device), metrics);
  EmitTotals(r.rank, MetricScope::Rank(), metrics);
  if (r.step_count == 0) return;
  double steps = static_cast<double>(r.step_count);
  metrics.Add(metric::kIdleTotalMsPerStep, MetricScope::Rank(), NsToMs(r.rank.idle_ns) / steps);
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    metrics.Add(metric::kIdleCauseMsPerStep, IdleCauseName(static_cast<IdleCause>(c)),
                MetricScope::Rank(), NsToMs(r.rank.ns[c]) / steps);
  }
}

}  // namespace

std::string_view IdleCauseName(IdleCause c) {
  switch (c) {
    case IdleCause::kInputWait: return "input_wait";
    case IdleCause::kCommWait: return "comm_wait";
    case IdleCause::kQueuedWait: return "queued_wait";
    case IdleCause::kSyncDrain: return "sync_drain";
    case IdleCause::kLaunchBound: return "launch_bound";
    case IdleCause::kHostBusy: return "host_busy";
    case IdleCause::kStepBoundary: return "step_boundary";
    case IdleCause::kOneOff: return "one_off";
    case IdleCause::kUnknown: return "unknown";
  }
  return "unknown";
}

IdleGapsResult ComputeIdleGaps(const AnalysisInput& input, MetricSet& metrics) {
  IdleGapsResult r;
  if (input.timelines.by_device.empty()) {
    r.not_applicable.push_back("idle gaps: the trace has no GPU ops");
    return r;
  }
  StepExtents scratch;
  const StepExtents& extents = SharedStepExtents(input, scratch);
  if (extents.steps.empty() || extents.Window().length() <= 0) {
    r.not_applicable.push_back("idle gaps: no analysed step window");
    return r;
  }
  r.step_count = static_cast<int64_t>(extents.steps.size());
  HostActivity scratch_host;
  const HostActivity& host = SharedHostActivity(input, scratch_host);
  if (!host.main_thread.valid())
    r.not_applicable.push_back(
        "idle gaps: no host thread launches GPU work: causes other than unknown/step_boundary "
        "cannot be seen");
  IdleHostSets sets = BuildIdleHostSets(input.trace, host);
  r.stream_wait_calls = CountStreamWaitCalls(input.trace);

  std::unordered_map<uint32_t, DurationNs> busy_names;
  for (const auto& [device, timeline] : input.timelines.by_device) {
    DeviceWork w = AttributeDevice(input, timeline, extents, sets);
    AddTotals(r.rank, w.summary.totals);
    r.devices.push_back(w.summary);
    for (IdleGap& g : w.top) r.top_gaps.push_back(std::move(g));
    AccumulateHostNames(input.trace, sets.segments, w.host_busy, busy_names);
  }
  std::stable_sort(r.top_gaps.begin(), r.top_gaps.end(), [](const IdleGap& a, const IdleGap& b) {
    return a.range.length() > b.range.length();
  });
  if (r.top_gaps.size() > input.options.top_n) r.top_gaps.resize(input.options.top_n);
  for (const IdleGap& g : r.top_gaps) {
    for (const IdlePiece& p : g.pieces) {
      std::string label(IdleCauseName(p.cause));
      if (!p.host_name.empty()) label += ": " + p.host_name;
      r.evidence.push_back(
          {"idle_gap", g.device, -1, p.range.start, p.range.end, std::move(label)});
    }
  }
  for (const auto& [name, ns] : busy_names)
    r.host_busy_top.push_back({std::string(input.trace.Str(StringId(name))), ns});
  std::sort(r.host_busy_top.begin(), r.host_busy_top.end(),
            [](const HostNameTime& a, const HostNameTime& b) {
              return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
            });
  if (r.host_busy_top.size() > input.options.top_n) r.host_busy_top.resize(input.options.top_n);
  EmitMetrics(r, metrics);
  return r;
}

}  // namespace gpuwhy
