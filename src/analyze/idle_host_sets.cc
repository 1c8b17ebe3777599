#include "analyze/idle_host_sets.h"

#include <algorithm>
#include <limits>

namespace gpuwhy {
namespace {

bool CountsAsHostWork(const CpuSliceTable& t, const HostActivity& host, size_t i) {
  return t.kind[i] != CpuSliceKind::kOther && (host.roles[i] & kRoleProfilerStep) == 0;
}

// Innermost-slice segments of one thread's rows (sorted by start, parents first). A child
// that outlives its parent is clipped to it, as the nesting in the model keeps it a child.
std::vector<HostSegment> InnermostSegments(const Trace& trace, const HostActivity& host,
                                           size_t begin, size_t end) {
  const CpuSliceTable& t = trace.cpu_slices;
  std::vector<HostSegment> out;
  struct Open {
    uint32_t row;
    TimeNs end;
  };
  std::vector<Open> stack;
  TimeNs cursor = 0;
  auto emit = [&out](TimeNs a, TimeNs b, uint32_t row) {
    if (b > a) out.push_back({a, b, row});
  };
  auto close_until = [&](TimeNs t_now) {
    while (!stack.empty() && stack.back().end <= t_now) {
      emit(cursor, stack.back().end, stack.back().row);
      cursor = stack.back().end;
      stack.pop_back();
    }
  };
  for (size_t i = begin; i < end; ++i) {
    if (!CountsAsHostWork(t, host, i)) continue;
    close_until(t.start[i]);
    if (!stack.empty()) emit(cursor, t.start[i], stack.back().row);
    cursor = t.start[i];
    TimeNs e = stack.empty() ? t.end[i] : std::min(t.end[i], stack.back().end);
    stack.push_back({static_cast<uint32_t>(i), e});
  }
  close_until(std::numeric_limits<TimeNs>::max());
  return out;
}

// Outermost ATen ops and autograd nodes that issue GPU work somewhere below them: their
// whole duration is framework dispatch on the way to a launch.
void AddDispatchRoots(const Trace& trace, const HostActivity& host, size_t begin, size_t end,
                      std::vector<Interval>& out) {
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
  TimeNs root_end = std::numeric_limits<TimeNs>::min();
  for (size_t i = begin; i < end; ++i) {
    if (t.start[i] < root_end || !(host.roles[i] & kRoleDispatchOp) || !launches_below[i - begin])
      continue;
    out.push_back({t.start[i], t.end[i]});
    root_end = t.end[i];
  }
}

}  // namespace

IdleHostSets BuildIdleHostSets(const Trace& trace, const HostActivity& host) {
  const CpuSliceTable& t = trace.cpu_slices;
  IdleHostSets sets;
  std::vector<Interval> input, comm, drain, launch, busy;
  for (ThreadId thread : host.launching_threads) {
    auto [begin, end] = trace.ThreadRows(thread);
    bool is_main = thread == host.main_thread;
    TimeNs drain_start = -1;  // >= 0 while a sync has drained the queue and no launch followed
    bool in_run = false;
    Interval run;
    for (size_t i = begin; i < end; ++i) {
      uint8_t r = host.roles[i];
      Interval iv{t.start[i], t.end[i]};
      if (is_main && (r & kRoleDataLoader)) input.push_back(iv);
      if (r & kRoleCollectiveScope) comm.push_back(iv);
      if (CountsAsHostWork(t, host, i)) busy.push_back(iv);
      if (r & kRoleBlockingSync) {
        if (drain_start < 0) drain_start = iv.start;
        drain.push_back(iv);
      }
      if (r & kRoleLaunch) {
        if (drain_start >= 0 && iv.start >= drain_start) {
          drain.push_back({drain_start, iv.end});
          drain_start = -1;
        }
        // Launch calls of one thread never overlap: extend the current run or start one.
        if (in_run && iv.start - run.end <= kLaunchBridgeNs) {
          run.end = std::max(run.end, iv.end);
        } else {
          if (in_run) launch.push_back(run);
          run = iv;
          in_run = true;
        }
      }
    }
    if (in_run) launch.push_back(run);
    AddDispatchRoots(trace, host, begin, end, launch);
    sets.segments.push_back(InnermostSegments(trace, host, begin, end));
  }
  sets.input = IntervalSet::FromUnsorted(std::move(input));
  sets.comm = IntervalSet::FromUnsorted(std::move(comm));
  sets.drain = IntervalSet::FromUnsorted(std::move(drain));
  sets.launch = IntervalSet::FromUnsorted(std::move(launch));
  sets.busy = IntervalSet::FromUnsorted(std::move(busy));
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
                                     [&iv](const HostSegment& s) { return s.end <= iv.start; });
      for (; it != segs.end() && it->start < iv.end; ++it) {
        DurationNs overlap = std::min(it->end, iv.end) - std::max(it->start, iv.start);
        if (overlap > 0) by_name[trace.cpu_slices.name[it->row].value] += overlap;
      }
    }
  }
}

}  // namespace gpuwhy
