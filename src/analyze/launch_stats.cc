#include "analyze/launch_stats.h"

#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>

#include "analyze/runtime_calls.h"
#include "analyze/sorted_runs.h"
#include "base/percent.h"

namespace gpuwhy {
namespace {

LaunchRecord MakeRecord(const Trace& trace, size_t call, bool graph,
                        std::span<const CorrelatedGpuOp> launched) {
  const CpuSliceTable& s = trace.cpu_slices;
  const GpuOpTable& ops = trace.gpu_ops;
  LaunchRecord r;
  r.correlation = s.correlation[call];
  r.call = CpuSliceId(static_cast<uint32_t>(call));
  r.graph = graph;
  r.cpu_duration = s.end[call] - s.start[call];
  for (const CorrelatedGpuOp& op : launched) {
    size_t o = op.op.value;
    if (!r.first_op.valid() || ops.start[o] < ops.start[r.first_op.value]) r.first_op = op.op;
    r.gpu_duration += ops.end[o] - ops.start[o];
    ++r.op_count;
  }
  size_t first = r.first_op.value;
  r.device = ops.device[first];
  r.stream = ops.stream[first];
  r.raw_delay = ops.start[first] - s.end[call];
  return r;
}

template <typename Key>
std::vector<EvidenceRange> TopRecords(const Trace& trace, const std::vector<LaunchRecord>& records,
                                      size_t n, DurationNs threshold, Key key, bool delay) {
  std::vector<const LaunchRecord*> over;
  for (const LaunchRecord& r : records) {
    if (key(r) > threshold) over.push_back(&r);
  }
  // Only the first n are kept: a partial sort (the order is total: call rows are unique).
  size_t keep = std::min(n, over.size());
  std::partial_sort(over.begin(), over.begin() + static_cast<std::ptrdiff_t>(keep), over.end(),
                    [&](const LaunchRecord* a, const LaunchRecord* b) {
                      if (key(*a) != key(*b)) return key(*a) > key(*b);
                      return a->call.value < b->call.value;
                    });
  over.resize(keep);
  std::vector<EvidenceRange> out;
  const CpuSliceTable& s = trace.cpu_slices;
  for (const LaunchRecord* r : over) {
    size_t c = r->call.value;
    if (delay) {
      out.push_back({"launch_delay", r->device, r->stream, s.end[c], s.end[c] + r->launch_delay(),
                     std::string(trace.Str(trace.gpu_ops.name[r->first_op.value]))});
    } else {
      out.push_back({"runtime_outlier", r->device, r->stream, s.start[c], s.end[c],
                     std::string(trace.Str(s.name[c]))});
    }
  }
  return out;
}

void SummarizeLaunches(const AnalysisInput& input, LaunchStatsResult& r) {
  std::vector<double> delays, durations;
  delays.reserve(r.launches.size());
  durations.reserve(r.launches.size());
  std::map<uint32_t, LaunchCallName> names;
  const Trace& trace = input.trace;
  for (const LaunchRecord& l : r.launches) {
    delays.push_back(static_cast<double>(l.launch_delay()));
    durations.push_back(static_cast<double>(l.cpu_duration));
    r.gpu_ops += l.op_count;
    r.call_total += l.cpu_duration;
    if (l.graph) {
      ++r.graph_launches;
      r.graph_ops += l.op_count;
    }
    if (l.cpu_duration > input.options.runtime_outlier_ns) ++r.runtime_outliers;
    if (l.launch_delay() > input.options.launch_delay_outlier_ns) ++r.delay_outliers;
    if (l.gpu_duration < l.cpu_duration) ++r.short_kernels;
    LaunchCallName& n = names[trace.cpu_slices.name[l.call.value].value];
    ++n.count;
    n.total += l.cpu_duration;
  }
  r.calls = static_cast<int64_t>(r.launches.size());
  r.delay_ns = Summarize(delays);
  r.cpu_duration_ns = Summarize(durations);
  for (auto& [id, n] : names) {
    n.name = std::string(trace.strings.Get(StringId(id)));
    r.by_name.push_back(std::move(n));
  }
  std::sort(r.by_name.begin(), r.by_name.end(),
            [](const LaunchCallName& a, const LaunchCallName& b) {
              return a.count != b.count ? a.count > b.count : a.name < b.name;
            });
  size_t n = input.options.top_n;
  r.top_delays = TopRecords(
      trace, r.launches, n, input.options.launch_delay_outlier_ns,
      [](const LaunchRecord& l) { return l.launch_delay(); }, true);
  r.top_runtime_outliers = TopRecords(
      trace, r.launches, n, input.options.runtime_outlier_ns,
      [](const LaunchRecord& l) { return l.cpu_duration; }, false);
}

// Calls |visit|(call start, op row) for each op each launch enqueued, in launch order.
template <typename Visit>
void ForEachLaunchedOp(const Trace& trace, const LaunchStatsResult& r, Visit&& visit) {
  for (const LaunchRecord& l : r.launches) {
    TimeNs call_start = trace.cpu_slices.start[l.call.value];
    // A launch of one op launched first_op: no second lookup by correlation for it.
    CorrelatedGpuOp only{l.correlation, l.first_op};
    std::span<const CorrelatedGpuOp> launched = l.op_count == 1
                                                    ? std::span<const CorrelatedGpuOp>(&only, 1)
                                                    : trace.FindGpuOps(l.correlation);
    for (const CorrelatedGpuOp& op : launched) visit(call_start, op.op.value);
  }
}

// Each stream's launch and op start times, straight from the records: counted first so
// each list is reserved exactly, and no 24-byte event per change is held (60 MB for the
// 1.24 M launches of the 198 MB Nsight benchmark export; issue 37).
std::vector<StreamLaunchTimes> LaunchTimesByStream(const Trace& trace, const LaunchStatsResult& r) {
  using Key = std::pair<int32_t, int64_t>;
  const GpuOpTable& ops = trace.gpu_ops;
  std::map<Key, size_t> streams;  // few: a handful of streams per device
  Key last{};
  size_t last_index = 0;
  std::vector<size_t> counts;
  auto index_of = [&](size_t o) -> size_t& {
    Key key{ops.device[o], ops.stream[o]};
    if (counts.empty() || key != last) {
      last = key;
      last_index = streams.emplace(key, streams.size()).first->second;
      if (last_index == counts.size()) counts.push_back(0);
    }
    return counts[last_index];
  };
  ForEachLaunchedOp(trace, r, [&](TimeNs, size_t o) { ++index_of(o); });
  // Indices in first-seen order; the queues are built in (device, stream) order.
  std::vector<StreamLaunchTimes> times(streams.size());
  std::vector<size_t> slot(streams.size());
  size_t sorted = 0;
  for (const auto& [key, i] : streams) {
    slot[i] = sorted;
    times[sorted].device = key.first;
    times[sorted].stream = key.second;
    times[sorted].launches.reserve(counts[i]);
    times[sorted].starts.reserve(counts[i]);
    ++sorted;
  }
  counts.assign(counts.size(), 0);  // index_of's lookups only from here
  ForEachLaunchedOp(trace, r, [&](TimeNs call_start, size_t o) {
    index_of(o);
    StreamLaunchTimes& t = times[slot[last_index]];
    t.launches.push_back(call_start);
    t.starts.push_back(ops.start[o]);
  });
  return times;
}

// Launch calls and their total duration per step (calls starting inside the step's host
// extent); empty for synthesized steps. Counted from the records before they may be freed.
struct StepLaunches {
  std::vector<int64_t> count;
  std::vector<DurationNs> time;
};

StepLaunches CountStepLaunches(const AnalysisInput& input, const LaunchStatsResult& r) {
  const StepTable& steps = input.trace.steps;
  StepLaunches out;
  if (steps.synthesized) return out;
  out.count.assign(steps.size(), 0);
  out.time.assign(steps.size(), 0);
  for (const LaunchRecord& l : r.launches) {
    int64_t s = StepIndexAt(steps, input.trace.cpu_slices.start[l.call.value]);
    if (s < 0) continue;
    ++out.count[s];
    out.time[s] += l.cpu_duration;
  }
  return out;
}

void EmitMetrics(const AnalysisInput& input, const LaunchStatsResult& r,
                 const StepLaunches& per_step, MetricSet& m) {
  MetricScope rank = MetricScope::Rank();
  m.Add(metric::kLaunchCalls, rank, static_cast<double>(r.calls));
  m.Add(metric::kLaunchGpuOps, rank, static_cast<double>(r.gpu_ops));
  m.Add(metric::kLaunchGraphLaunches, rank, static_cast<double>(r.graph_launches));
  m.Add(metric::kLaunchCallTotalMs, rank, NsToMs(r.call_total));
  m.Add(metric::kLaunchCallMeanUs, rank, r.cpu_duration_ns.mean / kNsPerUs);
  m.Add(metric::kLaunchCallP95Us, rank, r.cpu_duration_ns.p95 / kNsPerUs);
  m.Add(metric::kLaunchDelayMeanUs, rank, r.delay_ns.mean / kNsPerUs);
  m.Add(metric::kLaunchDelayP50Us, rank, r.delay_ns.median / kNsPerUs);
  m.Add(metric::kLaunchDelayP95Us, rank, r.delay_ns.p95 / kNsPerUs);
  m.Add(metric::kLaunchDelayMaxUs, rank, r.delay_ns.max / kNsPerUs);
  m.Add(metric::kLaunchRuntimeOutliers, rank, static_cast<double>(r.runtime_outliers));
  m.Add(metric::kLaunchRuntimeOutlierPct, rank, PercentOf(r.runtime_outliers, r.calls));
  m.Add(metric::kLaunchDelayOutliers, rank, static_cast<double>(r.delay_outliers));
  m.Add(metric::kLaunchDelayOutlierPct, rank, PercentOf(r.delay_outliers, r.calls));
  m.Add(metric::kLaunchShortKernels, rank, static_cast<double>(r.short_kernels));
  m.Add(metric::kLaunchShortKernelPct, rank, PercentOf(r.short_kernels, r.calls));
  for (const StreamQueue& q : r.queues) {
    MetricScope scope = MetricScope::Stream(q.device, q.stream);
    m.Add(metric::kLaunchQueueLengthMean, scope, q.samples.mean);
    m.Add(metric::kLaunchQueueLengthP50, scope, q.samples.median);
    m.Add(metric::kLaunchQueueLengthMax, scope, q.samples.max);
    m.Add(metric::kLaunchQueueLengthTimeMean, scope, q.time_weighted_mean);
    m.Add(metric::kLaunchQueueFullMs, scope, NsToMs(q.full_time));
    m.Add(metric::kLaunchQueueFullPct, scope, 100.0 * q.full_ratio);
  }
  const StepTable& steps = input.trace.steps;
  for (size_t s = 0; s < per_step.count.size(); ++s) {
    MetricScope scope = MetricScope::Step(steps.rows[s].number);
    m.Add(metric::kLaunchCalls, scope, static_cast<double>(per_step.count[s]));
    m.Add(metric::kLaunchCallTotalMs, scope, NsToMs(per_step.time[s]));
  }
}

}  // namespace

LaunchStatsResult ComputeLaunchStats(const AnalysisInput& input, MetricSet& metrics,
                                     LaunchRecords records) {
  const Trace& trace = input.trace;
  LaunchStatsResult r;
  if (trace.gpu_ops.size() == 0) {
    r.not_applicable.push_back("launch: the trace has no GPU ops (CPU-only trace)");
    return r;
  }
  std::vector<RuntimeCallKind> kinds = ClassifyRuntimeCalls(trace);
  HtaFilter filter = MakeHtaFilter(input);
  const CpuSliceTable& s = trace.cpu_slices;
  std::vector<size_t> runs{0};  // where each host thread's records start
  // A call launches one op or more and each op has one call: at most one record per op.
  // Reserved, not grown by doubling (at 1 GB the copy at the last doubling held 113 MB of
  // records at once); the pages past the last record are never touched.
  r.launches.reserve(std::min(trace.gpu_ops.size(), s.size()));
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && s.thread[i] != s.thread[i - 1] && r.launches.size() > runs.back())
      runs.push_back(r.launches.size());
    bool graph = kinds[i] == RuntimeCallKind::kGraphLaunch;
    if (kinds[i] == RuntimeCallKind::kOther || !IsQueuedLaunch(kinds[i], trace.Str(s.name[i])))
      continue;
    if (s.correlation[i] == kNoValue || !filter.HostKept(s.start[i])) continue;
    std::span<const CorrelatedGpuOp> launched = trace.FindGpuOps(s.correlation[i]);
    if (launched.empty()) continue;
    r.launches.push_back(MakeRecord(trace, i, graph, launched));
  }
  auto by_call_start = [&s](const LaunchRecord& a, const LaunchRecord& b) {
    if (s.start[a.call.value] != s.start[b.call.value])
      return s.start[a.call.value] < s.start[b.call.value];
    return a.call.value < b.call.value;
  };
  // Slices are stored in start order per thread: the threads' runs are merged, and a sort
  // is left for rows out of that order (the order is total: call rows are unique).
  runs.push_back(r.launches.size());
  MergeSortedRuns(r.launches, std::move(runs), by_call_start);
  if (!std::is_sorted(r.launches.begin(), r.launches.end(), by_call_start))
    std::sort(r.launches.begin(), r.launches.end(), by_call_start);
  if (r.launches.empty()) {
    r.not_applicable.push_back(
        "launch: no launch call is joined to a GPU op by correlation (the trace has no "
        "cuda_runtime/cuda_driver "
        "launch events)");
    return r;
  }
  SummarizeLaunches(input, r);
  StepLaunches per_step = CountStepLaunches(input, r);
  std::vector<StreamLaunchTimes> times = LaunchTimesByStream(trace, r);
  // The queues are the records' last reader: dropped here, they are not held (64 bytes a
  // launch, 79 MB on the 198 MB Nsight benchmark export) while the queues' series are built.
  if (records == LaunchRecords::kDrop) std::vector<LaunchRecord>().swap(r.launches);
  r.queues =
      BuildStreamQueues(std::move(times), input.options.full_queue_length, trace.span().length());
  EmitMetrics(input, r, per_step, metrics);
  return r;
}

}  // namespace gpuwhy
