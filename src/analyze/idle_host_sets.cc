#include "analyze/idle_host_sets.h"

#include <algorithm>
#include <limits>

namespace gpuwhy {
namespace {

bool CountsAsHostWork(const CpuSliceTable& t, const HostActivity& host, size_t i) {
  return t.kind[i] != CpuSliceKind::kOther && (host.roles[i] & kRoleProfilerStep) == 0;
}

// Calls emit(start, end, row) for each innermost-slice piece of one thread's rows (sorted by
// start, parents first), in time order. A child that outlives its parent is clipped to it, as
// the nesting in the model keeps it a child.
template <typename Emit>
void WalkInnermost(const Trace& trace, const HostActivity& host, size_t begin, size_t end,
                   Emit&& emit) {
  const CpuSliceTable& t = trace.cpu_slices;
  struct Open {
    uint32_t row;
    TimeNs end;
  };
  std::vector<Open> stack;
  TimeNs cursor = 0;
  auto close_until = [&](TimeNs t_now) {
    while (!stack.empty() && stack.back().end <= t_now) {
      if (stack.back().end > cursor) emit(cursor, stack.back().end, stack.back().row);
      cursor = stack.back().end;
      stack.pop_back();
    }
  };
  for (size_t i = begin; i < end; ++i) {
    if (!CountsAsHostWork(t, host, i)) continue;
    close_until(t.start[i]);
    if (!stack.empty() && t.start[i] > cursor) emit(cursor, t.start[i], stack.back().row);
    cursor = t.start[i];
    TimeNs e = stack.empty() ? t.end[i] : std::min(t.end[i], stack.back().end);
    stack.push_back({static_cast<uint32_t>(i), e});
  }
  close_until(std::numeric_limits<TimeNs>::max());
}

// How many HostSegments [a, b) takes (one per kMaxHostSegmentNs).
size_t SegmentCount(TimeNs a, TimeNs b) {
  return static_cast<size_t>((b - a + kMaxHostSegmentNs - 1) / kMaxHostSegmentNs);
}

// Innermost-slice segments of one thread's rows. Counted first and stored at their exact
// size: grown by doubling, the vector of the longest thread held up to twice its 16 bytes per
// segment, and both copies during each growth, at the analysis' memory peak.
std::vector<HostSegment> InnermostSegments(const Trace& trace, const HostActivity& host,
                                           size_t begin, size_t end) {
  size_t count = 0;
  WalkInnermost(trace, host, begin, end,
                [&count](TimeNs a, TimeNs b, uint32_t) { count += SegmentCount(a, b); });
  std::vector<HostSegment> out;
  out.reserve(count);
  WalkInnermost(trace, host, begin, end, [&out](TimeNs a, TimeNs b, uint32_t row) {
    for (; b - a > kMaxHostSegmentNs; a += kMaxHostSegmentNs)
      out.push_back({a, static_cast<uint32_t>(kMaxHostSegmentNs), row});
    out.push_back({a, static_cast<uint32_t>(b - a), row});
  });
  return out;
}

// Per row of one thread's [begin, end): 1 when it or a row below it is a launch call.
std::vector<uint8_t> LaunchesBelow(const Trace& trace, const HostActivity& host, size_t begin,
                                   size_t end) {
  const CpuSliceTable& t = trace.cpu_slices;
  std::vector<uint8_t> launches_below(end - begin, 0);
  for (size_t i = end; i-- > begin;) {
    if (host.roles[i] & kRoleLaunch) launches_below[i - begin] = 1;
    CpuSliceId parent = t.parent[i];
    if (launches_below[i - begin] && parent.valid() && parent.value >= begin &&
        parent.value < end) {
      launches_below[parent.value - begin] = 1;
    }
  }
  return launches_below;
}

// Whether row i, or an ancestor of it that started after the sync returned, is framework
// dispatch (an ATen op or autograd node) that launches GPU work: the host is then on its way to
// refilling the queue, which stays the drain's cost. Python frames and annotations that launch
// somewhere below are not dispatch: preprocessing inside a pipeline's __call__ is host work of
// its own, however it ends (docs/metrics/idle_gaps.md).
bool RefillsQueue(const CpuSliceTable& t, const HostActivity& host,
                  const std::vector<uint8_t>& launches_below, size_t begin, size_t i,
                  TimeNs sync_end) {
  for (CpuSliceId row(static_cast<uint32_t>(i)); row.valid() && row.value >= begin;
       row = t.parent[row.value]) {
    if (t.start[row.value] < sync_end) return false;
    bool dispatch = (host.roles[row.value] & (kRoleDispatchOp | kRoleLaunch)) != 0;
    if (dispatch && launches_below[row.value - begin]) return true;
  }
  return false;
}

// Outermost collective ops (c10d::, nccl:, gloo:, record_param_comms) of one thread during
// which the host waits on the collective: a blocking call below them, no GPU work (a CPU
// collective: gloo, a barrier), or a call at least as long as half its GPU kernels and over
// kMinBlockingCollectiveNs. A non-blocking NCCL call (enqueue and return) is launch and
// dispatch cost, however many there are (docs/metrics/idle_gaps.md).
void AddBlockingCollectives(const Trace& trace, const HostActivity& host, size_t begin, size_t end,
                            std::vector<Interval>& out) {
  const CpuSliceTable& t = trace.cpu_slices;
  size_t i = begin;
  while (i < end) {
    if (!(host.roles[i] & kRoleCollectiveScope)) {
      ++i;
      continue;
    }
    const Interval root{t.start[i], t.end[i]};
    bool blocks = false;
    bool launched = false;
    DurationNs gpu_ns = 0;
    size_t j = i;
    for (; j < end && t.start[j] < root.end; ++j) {
      if (host.roles[j] & kRoleBlockingSync) blocks = true;
      if (!(host.roles[j] & kRoleLaunch)) continue;
      launched = true;
      for (const CorrelatedGpuOp& op : trace.FindGpuOps(t.correlation[j])) {
        gpu_ns += trace.gpu_ops.end[op.op.value] - trace.gpu_ops.start[op.op.value];
      }
    }
    blocks = blocks || !launched ||
             (root.length() >= kMinBlockingCollectiveNs && 2 * root.length() >= gpu_ns);
    if (blocks) out.push_back(root);
    i = j;
  }
}

// Outermost ATen ops and autograd nodes that issue GPU work somewhere below them: their
// whole duration is framework dispatch on the way to a launch.
void AddDispatchRoots(const Trace& trace, const HostActivity& host, size_t begin, size_t end,
                      const std::vector<uint8_t>& launches_below, IntervalSet::SortedBuilder& out) {
  const CpuSliceTable& t = trace.cpu_slices;
  TimeNs root_end = std::numeric_limits<TimeNs>::min();
  for (size_t i = begin; i < end; ++i) {
    if (t.start[i] < root_end || !(host.roles[i] & kRoleDispatchOp) || !launches_below[i - begin])
      continue;
    out.Add({t.start[i], t.end[i]});
    root_end = t.end[i];
  }
}

}  // namespace

IdleHostSets BuildIdleHostSets(const Trace& trace, const HostActivity& host) {
  const CpuSliceTable& t = trace.cpu_slices;
  IdleHostSets sets;
  std::vector<Interval> comm, drain;  // a few per step: collected, then merged
  for (ThreadId thread : host.launching_threads) {
    auto [begin, end] = trace.ThreadRows(thread);
    bool is_main = thread == host.main_thread;
    std::vector<uint8_t> launches_below = LaunchesBelow(trace, host, begin, end);
    // A thread's rows come in start order, so its busy, input and launch sets are merged as
    // they come: one entry per merged interval (thousands), not one per CPU slice (millions).
    IntervalSet::SortedBuilder input, busy, launch_runs, dispatch;
    TimeNs drain_start = -1;  // >= 0 while a sync has drained the queue and no launch followed
    TimeNs sync_end = -1;     // the latest blocking call's end in the open drain
    std::vector<Interval> after_sync;  // host work after the sync returned, before the launch
    bool in_run = false;
    Interval run;
    for (size_t i = begin; i < end; ++i) {
      uint8_t r = host.roles[i];
      Interval iv{t.start[i], t.end[i]};
      if (is_main && (r & kRoleDataLoader)) input.Add(iv);
      if (CountsAsHostWork(t, host, i)) busy.Add(iv);
      if (r & kRoleBlockingSync) {
        if (drain_start < 0) drain_start = iv.start;
        sync_end = std::max(sync_end, iv.end);
        drain.push_back(iv);
      } else if (drain_start >= 0 && iv.start >= sync_end && CountsAsHostWork(t, host, i) &&
                 !RefillsQueue(t, host, launches_below, begin, i, sync_end)) {
        // The sync has returned and the host runs CPU work (preprocessing, Python) that
        // issues nothing: that is host time, not a wait on the GPU (docs/metrics/idle_gaps.md).
        after_sync.push_back(iv);
      }
      if (r & kRoleLaunch) {
        if (drain_start >= 0 && iv.start >= drain_start) {
          IntervalSet piece = IntervalSet::FromUnsorted({{drain_start, iv.end}})
                                  .Subtract(IntervalSet::FromUnsorted(std::move(after_sync)));
          for (const Interval& p : piece.intervals()) drain.push_back(p);
          after_sync.clear();
          drain_start = -1;
          sync_end = -1;
        }
        // Launch calls of one thread never overlap: extend the current run or start one.
        if (in_run && iv.start - run.end <= kLaunchBridgeNs) {
          run.end = std::max(run.end, iv.end);
        } else {
          if (in_run) launch_runs.Add(run);
          run = iv;
          in_run = true;
        }
      }
    }
    if (in_run) launch_runs.Add(run);
    AddDispatchRoots(trace, host, begin, end, launches_below, dispatch);
    AddBlockingCollectives(trace, host, begin, end, comm);
    sets.input = sets.input.Union(std::move(input).Build());
    sets.busy = sets.busy.Union(std::move(busy).Build());
    sets.launch =
        sets.launch.Union(std::move(launch_runs).Build()).Union(std::move(dispatch).Build());
    sets.segments.push_back(InnermostSegments(trace, host, begin, end));
  }
  sets.comm = IntervalSet::FromUnsorted(std::move(comm));
  sets.drain = IntervalSet::FromUnsorted(std::move(drain));
  return sets;
}

void AccumulateHostNames(const Trace& trace, const std::vector<std::vector<HostSegment>>& segments,
                         const IntervalSet& set,
                         std::unordered_map<uint32_t, DurationNs>& by_name) {
  for (const std::vector<HostSegment>& segs : segments) {
    if (segs.empty()) continue;
    for (const Interval& iv : set.intervals()) {
      // Segments are disjoint and sorted, so their ends are sorted too.
      auto it = std::partition_point(segs.begin(), segs.end(),
                                     [&iv](const HostSegment& s) { return s.end() <= iv.start; });
      for (; it != segs.end() && it->start < iv.end; ++it) {
        DurationNs overlap = std::min(it->end(), iv.end) - std::max(it->start, iv.start);
        if (overlap > 0) by_name[trace.cpu_slices.name[it->row].value] += overlap;
      }
    }
  }
}

}  // namespace gpuwhy
