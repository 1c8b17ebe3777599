// The added tracks, from the analyses and the diagnosis (no parsing here).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "annotate/annotate.h"

namespace gpuwhy {
namespace {

// One process per kind of track, so Perfetto groups them.
constexpr int64_t kIdlePid = kAnnotatePidBase + 1;
constexpr int64_t kStepsPid = kAnnotatePidBase + 2;
constexpr int64_t kCountersPid = kAnnotatePidBase + 3;
constexpr int64_t kFindingsPid = kAnnotatePidBase + 4;
constexpr int64_t kCollectivesPid = kAnnotatePidBase + 5;
constexpr int64_t kLaneStride = 1000;  // lane N of track T is tid T * kLaneStride + N

AddedEvent Complete(int64_t pid, int64_t tid, Interval range, std::string name,
                    std::string category) {
  AddedEvent e;
  e.pid = pid;
  e.tid = tid;
  e.ts = range.start;
  e.dur = range.length();
  e.name = std::move(name);
  e.category = std::move(category);
  return e;
}

void AddIdle(const TraceAnalysis& a, AnnotationTracks& t) {
  t.process_names.push_back({kIdlePid, "gpuwhy: GPU idle by cause"});
  for (const DeviceIdleGaps& d : a.idle_gaps.devices) {
    int64_t tid = (d.device + 1) * kLaneStride;
    t.thread_names.push_back({{kIdlePid, tid}, fmt::format("GPU {} idle", d.device)});
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      std::string name(IdleCauseName(static_cast<IdleCause>(c)));
      for (const Interval& piece : d.by_cause[c].intervals()) {
        t.events.push_back(Complete(kIdlePid, tid, piece, name, "gpuwhy_idle"));
      }
    }
  }
}

void AddSteps(const TraceAnalysis& a, AnnotationTracks& t) {
  t.process_names.push_back({kStepsPid, "gpuwhy: steps"});
  int64_t tid = kLaneStride;
  t.thread_names.push_back({{kStepsPid, tid}, "analysed steps (breakdown in args, ms)"});
  for (const StepCosts& s : a.steps.steps) {
    AddedEvent e =
        Complete(kStepsPid, tid, s.window,
                 fmt::format("step {}: {:.3f} ms", s.number, NsToMs(s.total_ns)), "gpuwhy_step");
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
      e.number_args.push_back(
          {std::string(StepCategoryName(static_cast<StepCategory>(c))) + "_ms", NsToMs(s.ns[c])});
    }
    t.events.push_back(std::move(e));
  }
}

void Counter(AnnotationTracks& t, std::string name, TimeNs ts,
             std::vector<std::pair<std::string, double>> values) {
  AddedEvent e;
  e.phase = 'C';
  e.pid = kCountersPid;
  e.tid = 0;
  e.ts = ts;
  e.name = std::move(name);
  e.category = "gpuwhy_counter";
  e.number_args = std::move(values);
  t.events.push_back(std::move(e));
}

void AddCounters(const TraceAnalysis& a, AnnotationTracks& t, size_t max_points) {
  t.process_names.push_back({kCountersPid, "gpuwhy: counters"});
  const TimeSeriesResult& s = a.series;
  for (const DeviceBusySeries& d : s.devices) {
    std::string name = fmt::format("GPU {} utilization %", d.device);
    for (size_t b = 0; b < s.bucket_count; ++b) {
      Counter(t, name, s.Bucket(b).start,
              {{"kernel", d.kernel_pct[b]}, {"gpu_op", d.gpu_op_pct[b]}});
    }
    if (s.bucket_count > 0) Counter(t, name, s.window.end, {{"kernel", 0}, {"gpu_op", 0}});
  }
  for (const StreamQueue& q : a.launch.queues) {
    if (q.series.empty()) continue;
    std::string name = fmt::format("GPU {} stream {} queue length", q.device, q.stream);
    // Thin long series: per time bucket keep the maximum (what a queue-full check looks for).
    size_t stride = std::max<size_t>(1, q.series.size() / std::max<size_t>(1, max_points));
    for (size_t i = 0; i < q.series.size(); i += stride) {
      int64_t peak = 0;
      for (size_t j = i; j < q.series.size() && j < i + stride; ++j)
        peak = std::max(peak, q.series[j].length);
      Counter(t, name, q.series[i].ts, {{"length", static_cast<double>(peak)}});
    }
  }
}

void AddFindings(const Diagnosis& d, AnnotationTracks& t) {
  t.process_names.push_back({kFindingsPid, "gpuwhy: findings"});
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    int64_t tid = static_cast<int64_t>(i + 1) * kLaneStride;
    t.thread_names.push_back(
        {{kFindingsPid, tid}, fmt::format("#{} {} ({})", i + 1, f.id, SeverityName(f.severity))});
    for (const EvidenceRange& r : f.ranges) {
      if (r.end <= r.start) continue;
      AddedEvent e = Complete(kFindingsPid, tid, {r.start, r.end}, f.id, "gpuwhy_finding");
      e.string_args = {{"title", f.title}, {"range", r.label}, {"kind", r.kind}};
      if (r.device >= 0) e.number_args.push_back({"device", r.device});
      e.number_args.push_back({"recoverable_ms_per_step", NsToMs(f.recoverable_ns_per_step)});
      t.events.push_back(std::move(e));
    }
  }
}

// Lanes past the first show as "<track> · lane N" rather than a bare tid.
void NameExtraLanes(AnnotationTracks& t) {
  std::map<std::pair<int64_t, int64_t>, std::string> names(t.thread_names.begin(),
                                                           t.thread_names.end());
  std::set<std::pair<int64_t, int64_t>> extra;
  for (const AddedEvent& e : t.events) {
    if (e.phase == 'X' && e.tid % kLaneStride != 0) extra.insert({e.pid, e.tid});
  }
  for (const auto& [pid, tid] : extra) {
    auto base = names.find({pid, tid - tid % kLaneStride});
    if (base == names.end()) continue;
    t.thread_names.push_back(
        {{pid, tid}, fmt::format("{} · lane {}", base->second, tid % kLaneStride + 1)});
  }
}

}  // namespace

void AssignLanes(std::vector<AddedEvent>& events) {
  std::vector<size_t> order;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].phase == 'X') order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (events[a].pid != events[b].pid) return events[a].pid < events[b].pid;
    if (events[a].tid != events[b].tid) return events[a].tid < events[b].tid;
    return events[a].ts < events[b].ts;
  });
  // Per track: the end of the last event in each lane.
  std::map<std::pair<int64_t, int64_t>, std::vector<TimeNs>> lanes;
  for (size_t i : order) {
    AddedEvent& e = events[i];
    std::vector<TimeNs>& ends = lanes[{e.pid, e.tid}];
    size_t lane = 0;
    while (lane < ends.size() && ends[lane] > e.ts) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = e.ts + e.dur;
    e.tid += static_cast<int64_t>(lane);
  }
}

AnnotationTracks BuildCrossRankTracks(const CrossRankResult& result) {
  AnnotationTracks t;
  t.process_names.push_back({kCollectivesPid, "gpuwhy: collectives across ranks (aligned clock)"});
  const int64_t matched_tid = kLaneStride;
  t.thread_names.push_back(
      {{kCollectivesPid, matched_tid}, "matched collectives (first arrival to end of transfer)"});
  std::map<int64_t, int64_t> wait_tid;  // rank -> its waiting track
  for (const CrossRankRow& row : result.ranks) {
    int64_t tid = static_cast<int64_t>(wait_tid.size() + 2) * kLaneStride;
    wait_tid[row.rank] = tid;
    t.thread_names.push_back(
        {{kCollectivesPid, tid}, fmt::format("rank {} waiting for the last rank", row.rank)});
  }
  for (const MatchedCollective& c : result.collectives) {
    std::string label = c.step == kNoValue
                            ? fmt::format("{} #{}", c.kind, c.ordinal)
                            : fmt::format("{} step {} #{}", c.kind, c.step, c.ordinal);
    AddedEvent e =
        Complete(kCollectivesPid, matched_tid, {c.first_arrival, c.last_arrival + c.transfer_ns},
                 label, "gpuwhy_collective");
    e.string_args = {{"process_group", c.process_group}};
    e.number_args = {{"ranks", static_cast<double>(c.arrivals.size())},
                     {"late_rank", static_cast<double>(c.late_rank)},
                     {"late_by_us", NsToUs(c.late_by_ns)},
                     {"late_vs_second_us", NsToUs(c.late_vs_second_ns)},
                     {"total_wait_us", NsToUs(c.total_wait_ns)},
                     {"transfer_us", NsToUs(c.transfer_ns)}};
    if (c.bytes != kNoValue) e.number_args.push_back({"bytes", static_cast<double>(c.bytes)});
    if (c.busbw_gbps > 0) e.number_args.push_back({"busbw_gbps", c.busbw_gbps});
    t.events.push_back(std::move(e));
    for (const CollectiveArrival& a : c.arrivals) {
      auto tid = wait_tid.find(a.rank);
      if (tid == wait_tid.end() || a.wait_ns <= 0) continue;
      AddedEvent w = Complete(kCollectivesPid, tid->second, {a.arrival, a.arrival + a.wait_ns},
                              fmt::format("wait for rank {}", c.late_rank), "gpuwhy_wait");
      w.string_args = {{"collective", label}};
      w.number_args = {{"wait_us", NsToUs(a.wait_ns)}};
      t.events.push_back(std::move(w));
    }
  }
  AssignLanes(t.events);
  NameExtraLanes(t);
  return t;
}

AnnotationTracks BuildAnnotationTracks(const TraceAnalysis& analysis, const Diagnosis& diagnosis,
                                       size_t max_counter_points) {
  AnnotationTracks t;
  AddIdle(analysis, t);
  AddSteps(analysis, t);
  AddCounters(analysis, t, max_counter_points);
  AddFindings(diagnosis, t);
  AssignLanes(t.events);
  NameExtraLanes(t);
  return t;
}

}  // namespace gpuwhy
