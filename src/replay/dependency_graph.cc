// Builds the dependency graph in a few linear passes (plus a sort of each stream's issue
// times): host chains per thread, launches and streams, host waits, cross-stream waits.
#include "replay/dependency_graph.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "analyze/runtime_calls.h"
#include "base/checked_math.h"

namespace gpuwhy {

size_t DependencyGraph::Bytes() const {
  return time.capacity() * sizeof(TimeNs) + (src.capacity() + dst.capacity()) * sizeof(uint32_t) +
         kind.capacity() + models.capacity() + weight.capacity() * sizeof(DurationNs) +
         awaited_op.capacity() * sizeof(int64_t);
}

namespace {

constexpr DurationNs kDefaultLaunchLatencyNs = 5 * kNsPerUs;

// The lower median: of an even count the smaller middle value, so one late op among two does
// not become the typical delay.
DurationNs Median(std::vector<DurationNs>& v, DurationNs fallback) {
  if (v.empty()) return fallback;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

class GraphBuilder {
 public:
  GraphBuilder(const Trace& trace, const HostActivity& host, const DependencyGraphOptions& options,
               DependencyGraph& g)
      : trace_(trace), host_(host), options_(options), g_(g) {}

  void Build() {
    const CpuSliceTable& cpu = trace_.cpu_slices;
    const GpuOpTable& ops = trace_.gpu_ops;
    const Interval w = options_.window;
    const bool all = w.length() <= 0;
    auto first_at = [&](const std::vector<TimeNs>& t, size_t b, size_t e, TimeNs v) {
      return static_cast<size_t>(std::lower_bound(t.begin() + static_cast<std::ptrdiff_t>(b),
                                                  t.begin() + static_cast<std::ptrdiff_t>(e), v) -
                                 t.begin());
    };
    for (size_t t = 0; t < trace_.threads.size(); ++t) {
      auto [begin, end] = trace_.ThreadRows(ThreadId(static_cast<uint32_t>(t)));
      size_t b = begin, e = end;
      if (!all) {  // rows of a thread are in start order
        b = first_at(cpu.start, begin, end, w.start);
        e = first_at(cpu.start, b, end, w.end + 1);
      }
      if (b >= e) continue;
      g_.segments.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e),
                             static_cast<uint32_t>(2 * g_.slice_count)});
      g_.slice_count += e - b;
    }
    std::sort(
        g_.segments.begin(), g_.segments.end(),
        [](const SliceSegment& a, const SliceSegment& b) { return a.row_begin < b.row_begin; });
    g_.op_begin = all ? 0 : static_cast<uint32_t>(first_at(ops.start, 0, ops.size(), w.start));
    g_.op_end =
        all ? static_cast<uint32_t>(ops.size())
            : static_cast<uint32_t>(first_at(ops.start, g_.op_begin, ops.size(), w.end + 1));
    g_.op_count = g_.op_end - g_.op_begin;
    g_.time.resize(2 * (g_.slice_count + g_.op_count));
    for (const SliceSegment& s : g_.segments) {
      for (size_t i = s.row_begin; i < s.row_end; ++i) {
        g_.time[g_.SliceStart(i)] = cpu.start[i];
        g_.time[g_.SliceEnd(i)] = std::max(cpu.start[i], cpu.end[i]);
      }
    }
    for (size_t j = g_.op_begin; j < g_.op_end; ++j) {
      g_.time[g_.OpStart(j)] = ops.start[j];
      g_.time[g_.OpEnd(j)] = std::max(ops.start[j], ops.end[j]);
    }
    const size_t expected_edges = 2 * g_.slice_count + 4 * g_.op_count;
    for (auto* v : {&g_.src, &g_.dst}) v->reserve(expected_edges);
    g_.kind.reserve(expected_edges);
    g_.models.reserve(expected_edges);
    g_.weight.reserve(expected_edges);

    IndexLaunches();
    IndexStreams();
    ResolveHostWaits();
    // The main thread first: helper threads anchor on its points.
    if (host_.main_thread.valid()) ChainThread(host_.main_thread);
    for (size_t t = 0; t < trace_.threads.size(); ++t) {
      if (ThreadId(static_cast<uint32_t>(t)) != host_.main_thread)
        ChainThread(ThreadId(static_cast<uint32_t>(t)));
    }
    if (options_.hta) ChainHtaThreads();
    LinkGpuOps();
    LinkEventWaits();
    InferStreamWaits();
  }

 private:
  // |hta_timed|: in HTA's graph the edge weighs the time between its points (else 0).
  void AddEdge(uint32_t from, uint32_t to, DepEdgeKind kind, uint8_t models, DurationNs weight,
               bool hta_timed) {
    g_.src.push_back(from);
    g_.dst.push_back(to);
    g_.kind.push_back(kind);
    g_.models.push_back(static_cast<uint8_t>(models | (hta_timed ? kHtaTimed : 0)));
    g_.weight.push_back(std::max<DurationNs>(0, weight));
  }
  DurationNs Gap(uint32_t from, uint32_t to) const {
    return std::max<DurationNs>(0, g_.time[to] - g_.time[from]);
  }

  // Per op, its launch call; per stream, its ops in start order and their issue times.
  void IndexLaunches() {
    const GpuOpTable& ops = trace_.gpu_ops;
    op_launch_.assign(ops.size(), kNone);
    for (size_t j = g_.op_begin; j < g_.op_end; ++j) {
      CpuSliceId l = trace_.FindLaunch(ops.correlation[j]);
      if (l.valid() && g_.HasSlice(l.value)) op_launch_[j] = l.value;
    }
  }
  TimeNs IssueTime(size_t op) const {
    return op_launch_[op] != kNone ? trace_.cpu_slices.start[op_launch_[op]]
                                   : trace_.gpu_ops.start[op];
  }
  void IndexStreams() {
    const GpuOpTable& ops = trace_.gpu_ops;
    std::map<std::pair<int32_t, int64_t>, uint32_t> ids;
    op_stream_.resize(ops.size());
    for (size_t j = g_.op_begin; j < g_.op_end; ++j) {
      auto [it, added] =
          ids.try_emplace({ops.device[j], ops.stream[j]}, static_cast<uint32_t>(ids.size()));
      if (added) {
        stream_ops_.emplace_back();
        stream_key_.push_back(it->first);
      }
      op_stream_[j] = it->second;
      stream_ops_[it->second].push_back(static_cast<uint32_t>(j));
    }
    // Issue times made non-decreasing (a running max), so a binary search finds the last op
    // issued before a moment even when two threads feed one stream.
    stream_issue_.resize(stream_ops_.size());
    for (size_t s = 0; s < stream_ops_.size(); ++s) {
      TimeNs running = std::numeric_limits<TimeNs>::min();
      for (uint32_t j : stream_ops_[s]) {
        running = std::max(running, IssueTime(j));
        stream_issue_[s].push_back(running);
      }
    }
  }
  // Position in stream |s| of the last op issued before |t|, or -1.
  int64_t LastIssuedBefore(size_t s, TimeNs t) const {
    const auto& issue = stream_issue_[s];
    auto it = std::lower_bound(issue.begin(), issue.end(), t);
    return static_cast<int64_t>(it - issue.begin()) - 1;
  }

  // Which op each blocking host call waited for: its own copy (cudaMemcpy), the last op
  // issued on the synchronized stream (a Stream Sync record names it), else the latest-ending
  // op issued on any stream before the call that ended before the call returned.
  void ResolveHostWaits() {
    const CpuSliceTable& cpu = trace_.cpu_slices;
    const GpuOpTable& ops = trace_.gpu_ops;
    g_.awaited_op.assign(g_.slice_count, -1);
    sync_models_.assign(g_.slice_count, kInReplay);
    std::map<int64_t, size_t> sync_record;  // correlation -> gpu_syncs row
    for (size_t r = 0; r < trace_.gpu_syncs.size(); ++r) {
      const auto& row = trace_.gpu_syncs.rows[r];
      const std::string_view name = trace_.Str(row.name);
      if (row.correlation != kNoValue && (name == "Stream Sync" || name == "Context Sync"))
        sync_record.emplace(row.correlation, r);
    }
    for (const SliceSegment& seg : g_.segments) {
      for (size_t i = seg.row_begin; i < seg.row_end; ++i) {
        if ((host_.roles[i] & kRoleBlockingSync) == 0) continue;
        const TimeNs start = cpu.start[i], end = cpu.end[i];
        int64_t best = -1;
        auto consider = [&](int64_t j) {
          if (j < 0 || !g_.HasOp(static_cast<size_t>(j)) || ops.end[j] > end) return;
          if (best < 0 || ops.end[j] > ops.end[best]) best = j;
        };
        const std::string_view name = trace_.Str(cpu.name[i]);
        if (ClassifyRuntimeCall(name) == RuntimeCallKind::kSyncMemcpy) {
          for (const CorrelatedGpuOp& op : trace_.FindGpuOps(cpu.correlation[i]))
            consider(op.op.value);
        }
        if (best < 0) {
          auto rec = sync_record.find(cpu.correlation[i]);
          for (size_t s = 0; s < stream_ops_.size(); ++s) {
            if (rec != sync_record.end()) {
              const auto& row = trace_.gpu_syncs.rows[rec->second];
              if (trace_.Str(row.name) == "Stream Sync" &&
                  stream_key_[s] != std::make_pair(row.device, row.stream))
                continue;
            }
            int64_t k = LastIssuedBefore(s, start);
            if (k >= 0) consider(stream_ops_[s][static_cast<size_t>(k)]);
          }
        }
        if (best >= 0 && ops.end[best] > start) {
          const size_t local = g_.LocalSlice(i);
          g_.awaited_op[local] = best;
          // HTA links a host call to the GPU only through a cuda_sync record (weight 0).
          if (sync_record.count(cpu.correlation[i]) > 0) sync_models_[local] = kInReplay | kInHta;
          ++g_.sync_waits;
        }
      }
    }
  }
  // The window's rows of |thread|: [begin, end), empty when it has none.
  std::pair<size_t, size_t> WindowRows(ThreadId thread) const {
    auto [begin, end] = trace_.ThreadRows(thread);
    for (const SliceSegment& s : g_.segments) {
      if (s.row_begin >= begin && s.row_end <= end) return {s.row_begin, s.row_end};
    }
    return {0, 0};
  }

  // The replay's host chain of one thread (every slice), in nesting order.
  void ChainThread(ThreadId thread) {
    const CpuSliceTable& cpu = trace_.cpu_slices;
    auto [begin, end] = WindowRows(thread);
    const bool main = thread == host_.main_thread;
    std::vector<uint32_t> stack;
    int64_t last = -1;
    auto close = [&](uint32_t row) {
      const uint32_t p = g_.SliceEnd(row);
      if (last >= 0) {
        DurationNs w = Gap(static_cast<uint32_t>(last), p);
        const int64_t awaited = g_.awaited_op[g_.LocalSlice(row)];
        if (awaited >= 0) {  // only the part after the awaited op ended is the call's own
          const uint32_t op_end = g_.OpEnd(static_cast<size_t>(awaited));
          const DurationNs post = std::max<DurationNs>(0, g_.time[p] - g_.time[op_end]);
          w = std::min(w, post);
          AddEdge(op_end, p, DepEdgeKind::kSync, sync_models_[g_.LocalSlice(row)], post, false);
        }
        AddEdge(static_cast<uint32_t>(last), p, DepEdgeKind::kHostOrder, kInReplay, w, false);
      }
      last = p;
      if (main) main_points_.push_back(p);
    };
    for (size_t i = begin; i < end; ++i) {
      while (!stack.empty() && cpu.end[stack.back()] <= cpu.start[i]) {
        close(stack.back());
        stack.pop_back();
      }
      const uint32_t p = g_.SliceStart(i);
      if (!stack.empty()) {
        AddEdge(static_cast<uint32_t>(last), p, DepEdgeKind::kHostOrder, kInReplay,
                Gap(static_cast<uint32_t>(last), p), false);
      } else {
        // A helper thread (autograd's backward thread, a communication thread) resumes when
        // the main thread hands it work: its idle time follows the main thread's points.
        const int64_t anchor = main ? -1 : MainPointBefore(cpu.start[i]);
        if (anchor >= 0) {
          AddEdge(static_cast<uint32_t>(anchor), p, DepEdgeKind::kCrossThread, kInReplay,
                  Gap(static_cast<uint32_t>(anchor), p), false);
        }
        if (last >= 0) {
          DurationNs w = anchor >= 0 ? 0 : Gap(static_cast<uint32_t>(last), p);
          AddEdge(static_cast<uint32_t>(last), p, DepEdgeKind::kHostGap, kInReplay, w, false);
        }
      }
      last = p;
      if (main) main_points_.push_back(p);
      stack.push_back(static_cast<uint32_t>(i));
    }
    while (!stack.empty()) {
      close(stack.back());
      stack.pop_back();
    }
    if (main) {
      main_times_.reserve(main_points_.size());
      TimeNs running = std::numeric_limits<TimeNs>::min();
      for (uint32_t p : main_points_) {
        running = std::max(running, g_.time[p]);
        main_times_.push_back(running);
      }
    }
  }
  int64_t MainPointBefore(TimeNs t) const {
    auto it = std::upper_bound(main_times_.begin(), main_times_.end(), t);
    if (it == main_times_.begin()) return -1;
    return main_points_[static_cast<size_t>(it - main_times_.begin()) - 1];
  }

  // HolisticTraceAnalysis' host chain: only cpu_op and runtime events of positive duration,
  // nested as on the thread; consecutive top-level events linked with weight 0.
  void ChainHtaThreads() {
    const CpuSliceTable& cpu = trace_.cpu_slices;
    for (size_t t = 0; t < trace_.threads.size(); ++t) {
      auto [begin, end] = WindowRows(ThreadId(static_cast<uint32_t>(t)));
      std::vector<uint32_t> stack;
      int64_t last = -1;
      auto close = [&](uint32_t row) {
        const uint32_t p = g_.SliceEnd(row);
        AddEdge(static_cast<uint32_t>(last), p, DepEdgeKind::kHostOrder, kInHta, 0, true);
        last = p;
      };
      for (size_t i = begin; i < end; ++i) {
        const CpuSliceKind k = cpu.kind[i];
        if (k != CpuSliceKind::kOp && k != CpuSliceKind::kRuntime && k != CpuSliceKind::kDriver)
          continue;
        if (cpu.end[i] <= cpu.start[i]) continue;
        while (!stack.empty() && cpu.end[stack.back()] <= cpu.start[i]) {
          close(stack.back());
          stack.pop_back();
        }
        const uint32_t p = g_.SliceStart(i);
        if (last >= 0) {
          AddEdge(static_cast<uint32_t>(last), p,
                  stack.empty() ? DepEdgeKind::kHostGap : DepEdgeKind::kHostOrder, kInHta, 0,
                  !stack.empty());
        }
        last = p;
        stack.push_back(static_cast<uint32_t>(i));
      }
      while (!stack.empty()) {
        close(stack.back());
        stack.pop_back();
      }
    }
  }

  // Launch and stream edges. The replay's delays are the rank's medians, not each op's own
  // measured wait: an op that started later than its launch and its stream explain is what
  // the replay error shows.
  void LinkGpuOps() {
    const GpuOpTable& ops = trace_.gpu_ops;
    const CpuSliceTable& cpu = trace_.cpu_slices;
    std::vector<DurationNs> latency, queued_gap;
    std::vector<uint8_t> stream_free(ops.size(), 1);
    for (const auto& list : stream_ops_) {
      for (size_t k = 0; k < list.size(); ++k) {
        const uint32_t j = list[k];
        if (op_launch_[j] == kNone) continue;
        const TimeNs launch = cpu.start[op_launch_[j]];
        const bool free = k == 0 || ops.end[list[k - 1]] <= launch;
        stream_free[j] = free ? 1 : 0;
        if (free && ops.start[j] >= launch) latency.push_back(ops.start[j] - launch);
      }
    }
    g_.launch_latency_ns = Median(latency, kDefaultLaunchLatencyNs);
    for (const auto& list : stream_ops_) {
      for (size_t k = 1; k < list.size(); ++k) {
        const uint32_t j = list[k];
        if (op_launch_[j] == kNone || stream_free[j]) continue;
        if (cpu.start[op_launch_[j]] + g_.launch_latency_ns < ops.end[list[k - 1]])
          queued_gap.push_back(std::max<DurationNs>(0, ops.start[j] - ops.end[list[k - 1]]));
      }
    }
    g_.queue_gap_ns = Median(queued_gap, 0);

    for (const auto& list : stream_ops_) {
      for (size_t k = 0; k < list.size(); ++k) {
        const uint32_t j = list[k];
        const uint32_t start = g_.OpStart(j), end = g_.OpEnd(j);
        AddEdge(start, end, DepEdgeKind::kGpuBusy, kInReplay | kInHta, Gap(start, end), true);
        const bool launched = op_launch_[j] != kNone;
        if (launched) {
          const uint32_t call = g_.SliceStart(op_launch_[j]);
          AddEdge(call, start, DepEdgeKind::kLaunch,
                  static_cast<uint8_t>(kInReplay | (stream_free[j] ? kInHta : 0)),
                  g_.launch_latency_ns, true);
        }
        if (k > 0) {
          const uint32_t prev = g_.OpEnd(list[k - 1]);
          const bool hta = !launched || !stream_free[j];
          AddEdge(prev, start, DepEdgeKind::kStreamOrder,
                  static_cast<uint8_t>(kInReplay | (hta ? kInHta : 0)),
                  std::min(g_.queue_gap_ns, Gap(prev, start)), true);
        }
      }
    }
  }

  // cudaStreamWaitEvent: the first op issued on the waiting stream after the wait call starts
  // after the last op the recording thread launched before its cudaEventRecord (as HTA pairs
  // them: the event handle itself is not in the trace).
  void LinkEventWaits() {
    const CpuSliceTable& cpu = trace_.cpu_slices;
    event_ready_.assign(trace_.gpu_ops.size(), std::numeric_limits<TimeNs>::min());
    if (trace_.gpu_syncs.size() == 0) return;
    // Per thread, the launch calls that issued ops, in start order.
    std::vector<std::vector<uint32_t>> thread_launch_ops(trace_.threads.size());
    std::vector<std::vector<TimeNs>> thread_launch_times(trace_.threads.size());
    for (size_t j = 0; j < op_launch_.size(); ++j) {
      if (op_launch_[j] == kNone) continue;
      const size_t t = cpu.thread[op_launch_[j]].value;
      thread_launch_ops[t].push_back(static_cast<uint32_t>(j));
      thread_launch_times[t].push_back(cpu.start[op_launch_[j]]);
    }
    for (size_t t = 0; t < thread_launch_ops.size(); ++t) {
      std::vector<uint32_t> order(thread_launch_ops[t].size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<uint32_t>(k);
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return thread_launch_times[t][a] < thread_launch_times[t][b];
      });
      std::vector<uint32_t> ops_sorted;
      std::vector<TimeNs> times_sorted;
      for (uint32_t k : order) {
        ops_sorted.push_back(thread_launch_ops[t][k]);
        times_sorted.push_back(thread_launch_times[t][k]);
      }
      thread_launch_ops[t] = std::move(ops_sorted);
      thread_launch_times[t] = std::move(times_sorted);
    }
    std::map<std::pair<int32_t, int64_t>, size_t> stream_index;
    for (size_t s = 0; s < stream_key_.size(); ++s) stream_index[stream_key_[s]] = s;
    for (const auto& row : trace_.gpu_syncs.rows) {
      if (row.wait_on_event_correlation == kNoValue || trace_.Str(row.name) != "Stream Wait Event")
        continue;
      CpuSliceId record = trace_.FindLaunch(row.wait_on_event_correlation);
      CpuSliceId wait = trace_.FindLaunch(row.correlation);
      auto s = stream_index.find({row.device, row.stream});
      if (!record.valid() || !wait.valid() || s == stream_index.end()) continue;
      if (!g_.HasSlice(record.value) || !g_.HasSlice(wait.value)) continue;
      const size_t t = cpu.thread[record.value].value;
      const auto& times = thread_launch_times[t];
      auto it = std::lower_bound(times.begin(), times.end(), cpu.start[record.value]);
      if (it == times.begin()) continue;
      const uint32_t source = thread_launch_ops[t][static_cast<size_t>(it - times.begin()) - 1];
      const int64_t k = LastIssuedBefore(s->second, cpu.start[wait.value]) + 1;
      if (k >= static_cast<int64_t>(stream_ops_[s->second].size())) continue;
      const uint32_t target = stream_ops_[s->second][static_cast<size_t>(k)];
      if (source == target || ops_end(source) > trace_.gpu_ops.start[target]) continue;
      AddEdge(g_.OpEnd(source), g_.OpStart(target), DepEdgeKind::kEventWait, kInReplay | kInHta, 0,
              false);
      event_ready_[target] = std::max(event_ready_[target], ops_end(source));
      ++g_.event_waits;
    }
  }
  TimeNs ops_end(uint32_t j) const { return trace_.gpu_ops.end[j]; }

  // A GPU starts an op as soon as its stream and its dependencies let it. An op that started
  // well after its launch and its stream's previous op, and right when an op of another stream
  // of its device ended, waited for that op: a cross-stream event wait the trace did not record
  // (no cuda_sync records; PyTorch's cudaStreamWaitEvent between compute and NCCL streams).
  void InferStreamWaits() {
    const GpuOpTable& ops = trace_.gpu_ops;
    const CpuSliceTable& cpu = trace_.cpu_slices;
    std::vector<uint32_t> by_end;
    by_end.reserve(g_.op_count);
    for (size_t j = g_.op_begin; j < g_.op_end; ++j) by_end.push_back(static_cast<uint32_t>(j));
    std::sort(by_end.begin(), by_end.end(), [&ops](uint32_t a, uint32_t b) {
      return ops.end[a] != ops.end[b] ? ops.end[a] < ops.end[b] : a < b;
    });
    for (const auto& list : stream_ops_) {
      for (size_t k = 0; k < list.size(); ++k) {
        const uint32_t j = list[k];
        TimeNs explained = event_ready_[j];
        if (op_launch_[j] != kNone)
          explained =
              std::max(explained, SaturatingAdd(cpu.start[op_launch_[j]], g_.launch_latency_ns));
        if (k > 0)
          explained = std::max(explained, SaturatingAdd(ops.end[list[k - 1]], g_.queue_gap_ns));
        // Saturating: times of a damaged trace may sit near the ends of the int64 range.
        if (SaturatingSub(ops.start[j], explained) <= kUnexplainedStartNs) continue;
        // The latest op of another stream of this device that ended shortly before the start.
        auto it = std::upper_bound(by_end.begin(), by_end.end(), ops.start[j],
                                   [&ops](TimeNs t, uint32_t a) { return t < ops.end[a]; });
        for (int look = 0; look < kLookBack && it != by_end.begin(); ++look) {
          const uint32_t other = *--it;
          if (SaturatingSub(ops.start[j], ops.end[other]) > kImplicitWaitWindowNs) break;
          if (op_stream_[other] == op_stream_[j] || ops.device[other] != ops.device[j]) continue;
          AddEdge(g_.OpEnd(other), g_.OpStart(j), DepEdgeKind::kEventWait, kInReplay,
                  std::min(g_.queue_gap_ns, SaturatingSub(ops.start[j], ops.end[other])), false);
          ++g_.inferred_waits;
          break;
        }
      }
    }
  }
  static constexpr DurationNs kUnexplainedStartNs = 20 * kNsPerUs;
  static constexpr DurationNs kImplicitWaitWindowNs = 20 * kNsPerUs;
  static constexpr int kLookBack = 16;

  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  const Trace& trace_;
  const HostActivity& host_;
  const DependencyGraphOptions& options_;
  DependencyGraph& g_;
  std::vector<uint8_t> sync_models_;  // per host slice: the models its sync edge belongs to
  std::vector<uint32_t> op_launch_;
  std::vector<uint32_t> op_stream_;
  std::vector<std::vector<uint32_t>> stream_ops_;
  std::vector<std::pair<int32_t, int64_t>> stream_key_;
  std::vector<std::vector<TimeNs>> stream_issue_;
  std::vector<TimeNs> event_ready_;  // per op: when its recorded event wait's source ended
  std::vector<uint32_t> main_points_;
  std::vector<TimeNs> main_times_;
};

}  // namespace

DependencyGraph BuildDependencyGraph(const Trace& trace, const HostActivity& host,
                                     const DependencyGraphOptions& options) {
  DependencyGraph g;
  GraphBuilder(trace, host, options, g).Build();
  return g;
}

}  // namespace gpuwhy
