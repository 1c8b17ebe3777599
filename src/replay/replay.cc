// The replay of one rank: graph, baseline replay, per-step windows and critical paths, what-ifs.
#include "replay/replay.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "analyze/host_activity.h"
#include "analyze/kernel_class.h"
#include "replay/dependency_graph.h"
#include "replay/simulate.h"

namespace gpuwhy {

std::string_view PathClassName(PathClass c) {
  switch (c) {
    case PathClass::kHost: return "host";
    case PathClass::kLaunch: return "launch";
    case PathClass::kInput: return "input";
    case PathClass::kSync: return "sync";
    case PathClass::kCopy: return "copy";
    case PathClass::kCommunication: return "communication";
    case PathClass::kKernelGemm: return "kernel.gemm";
    case PathClass::kKernelConvolution: return "kernel.convolution";
    case PathClass::kKernelAttention: return "kernel.attention";
    case PathClass::kKernelElementwise: return "kernel.elementwise";
    case PathClass::kKernelReduction: return "kernel.reduction";
    case PathClass::kKernelNormalization: return "kernel.normalization";
    case PathClass::kKernelOther: return "kernel.other";
  }
  return "host";
}

std::string_view WhatIfName(WhatIf w) {
  switch (w) {
    case WhatIf::kInputRemoved: return "input_removed";
    case WhatIf::kSyncsRemoved: return "syncs_removed";
    case WhatIf::kLaunchOverheadRemoved: return "launch_overhead_removed";
  }
  return "input_removed";
}

namespace {

PathClass OpClass(const Trace& trace, size_t op) {
  switch (ClassifyKernel(trace.gpu_ops.kind[op], trace.Str(trace.gpu_ops.name[op]))) {
    case KernelClass::kGemm: return PathClass::kKernelGemm;
    case KernelClass::kConvolution: return PathClass::kKernelConvolution;
    case KernelClass::kAttention: return PathClass::kKernelAttention;
    case KernelClass::kElementwise: return PathClass::kKernelElementwise;
    case KernelClass::kReduction: return PathClass::kKernelReduction;
    case KernelClass::kNormalization: return PathClass::kKernelNormalization;
    case KernelClass::kCommunication: return PathClass::kCommunication;
    case KernelClass::kCopy: return PathClass::kCopy;
    case KernelClass::kOther: return PathClass::kKernelOther;
  }
  return PathClass::kKernelOther;
}

// Per host slice, the class of the time spent directly inside it: input under a DataLoader
// step (at any depth), sync in a blocking call or .item(), launch in a launch call, else host.
std::vector<PathClass> SliceClasses(const Trace& trace, const HostActivity& host) {
  const CpuSliceTable& cpu = trace.cpu_slices;
  std::vector<PathClass> cls(cpu.size(), PathClass::kHost);
  for (size_t i = 0; i < cpu.size(); ++i) {  // a parent's row comes before its children's
    const CpuSliceId parent = cpu.parent[i];
    const bool parent_input = parent.valid() && cls[parent.value] == PathClass::kInput;
    const uint8_t r = host.roles[i];
    if (parent_input || (r & kRoleDataLoader)) {
      cls[i] = PathClass::kInput;
    } else if (r & (kRoleBlockingSync | kRoleItemScope)) {
      cls[i] = PathClass::kSync;
    } else if (r & kRoleLaunch) {
      cls[i] = PathClass::kLaunch;
    }
  }
  return cls;
}

class Replayer {
 public:
  Replayer(const Trace& trace, const TraceAnalysis& analysis, const ReplayOptions& options)
      : trace_(trace), analysis_(analysis), options_(options) {}

  ReplayResult Run() {
    ReplayResult out;
    const StepExtents& extents = analysis_.steps.extents;
    if (extents.steps.empty() || trace_.steps.rows.empty()) {
      out.not_applicable = "no step to replay";
      return out;
    }
    if (trace_.gpu_ops.size() == 0) {
      out.not_applicable = "no GPU op in the trace";
      return out;
    }
    host_ = ClassifyHostActivity(trace_);
    graph_ = BuildDependencyGraph(trace_, host_, {.window = SampleSteps()});
    index_ = IndexEdgesBySource(graph_);
    slice_class_ = SliceClasses(trace_, host_);
    IndexMainPoints();
    IndexStepOps();

    Schedule base = Simulate(graph_, index_, graph_.weight, kInReplay);
    std::vector<Window> measured = Windows(graph_.time);
    std::vector<Window> replayed = Windows(base.time);
    out.points = graph_.size();
    out.edges = graph_.edge_count();
    out.sync_waits = graph_.sync_waits;
    out.event_waits = graph_.event_waits;
    out.inferred_waits = graph_.inferred_waits;
    out.launch_latency_ns = graph_.launch_latency_ns;
    out.queue_gap_ns = graph_.queue_gap_ns;
    out.points_in_cycles = base.points_in_cycles;

    std::vector<double> errors;
    std::vector<DurationNs> measured_ns, replayed_ns;
    std::map<std::pair<uint8_t, uint32_t>, DurationNs> entries;  // (class, name) -> ns
    for (size_t k = 0; k < rows_kept_.size(); ++k) {
      if (!rows_kept_[k]) continue;
      const Window& m = measured[k];
      const Window& r = replayed[k];
      ReplayStep step;
      step.number = trace_.steps.rows[k].number;
      step.measured_ns = m.end - m.start;
      step.replayed_ns = r.end - r.start;
      if (step.measured_ns > 0) {
        step.error_pct = 100.0 * static_cast<double>(step.replayed_ns - step.measured_ns) /
                         static_cast<double>(step.measured_ns);
      }
      errors.push_back(std::fabs(step.error_pct));
      measured_ns.push_back(step.measured_ns);
      replayed_ns.push_back(step.replayed_ns);
      out.steps.push_back(step);
      WalkCriticalPath(base, r, out.class_ns, entries);
    }
    if (out.steps.empty()) {
      out.not_applicable = "no steady step matched the step table";
      return out;
    }
    out.available = true;
    const auto n = static_cast<DurationNs>(out.steps.size());
    for (DurationNs& ns : out.class_ns) ns /= n;
    for (DurationNs ns : out.class_ns) out.critical_path_ns += ns;
    out.error_median_pct = MedianOf(errors);
    out.error_max_pct = *std::max_element(errors.begin(), errors.end());
    out.measured_median_ns = MedianOf(measured_ns);
    out.replayed_median_ns = MedianOf(replayed_ns);
    std::vector<PathEntry> top;
    for (const auto& [key, ns] : entries) {
      top.push_back({EntryName(key.second), static_cast<PathClass>(key.first), ns / n});
    }
    std::sort(top.begin(), top.end(), [](const PathEntry& a, const PathEntry& b) {
      return a.ns_per_step != b.ns_per_step ? a.ns_per_step > b.ns_per_step : a.name < b.name;
    });
    if (top.size() > options_.top_n) top.resize(options_.top_n);
    out.top = std::move(top);

    for (size_t w = 0; w < kWhatIfCount; ++w) {
      const auto what_if = static_cast<WhatIf>(w);
      std::vector<DurationNs> weight = graph_.weight;
      if (!ApplyWhatIf(what_if, weight)) continue;
      auto [step, saving] = ReplayAfter(weight, replayed);
      out.what_ifs.push_back({what_if, step, saving});
    }
    // Two fixes that both save time may share it (the same idle time waits on both): what
    // applying both gives is replayed too, not added up.
    for (size_t a = 0; a < out.what_ifs.size(); ++a) {
      for (size_t b = a + 1; b < out.what_ifs.size(); ++b) {
        if (out.what_ifs[a].saving_ns <= 0 || out.what_ifs[b].saving_ns <= 0) continue;
        std::vector<DurationNs> weight = graph_.weight;
        ApplyWhatIf(out.what_ifs[a].what_if, weight);
        ApplyWhatIf(out.what_ifs[b].what_if, weight);
        auto [step, saving] = ReplayAfter(weight, replayed);
        out.what_if_pairs.push_back(
            {out.what_ifs[a].what_if, out.what_ifs[b].what_if, step, saving});
      }
    }
    return out;
  }

 private:
  static constexpr uint32_t kUntraced = std::numeric_limits<uint32_t>::max();
  static constexpr uint32_t kStepGaps = kUntraced - 1;
  std::string EntryName(uint32_t name) const {
    if (name == kUntraced) return "(untraced host time)";
    if (name == kStepGaps) return "(host time between ops in the step)";
    return std::string(trace_.Str(StringId(name)));
  }
  struct Window {
    TimeNs start = 0;
    TimeNs end = 0;
    uint32_t end_point = 0;  // the point whose time ends the step
  };

  template <typename T>
  static T MedianOf(std::vector<T> v) {
    if (v.empty()) return T{};
    auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
  }

  // The steady steps replayed: all of them, or the middle kMaxSteps of a long capture, whose
  // window (from the step before them, so the replay starts warm) bounds the graph's memory.
  Interval SampleSteps() {
    const std::vector<StepExtent>& kept = analysis_.steps.extents.steps;
    if (kept.size() <= options_.max_steps) {
      sampled_ = kept;
      return {};
    }
    const size_t first = (kept.size() - options_.max_steps) / 2;
    sampled_.assign(kept.begin() + static_cast<std::ptrdiff_t>(first),
                    kept.begin() + static_cast<std::ptrdiff_t>(first + options_.max_steps));
    const auto& rows = trace_.steps.rows;
    TimeNs start = trace_.span().start;
    for (size_t k = 1; k < rows.size(); ++k) {
      if (rows[k].host_start == sampled_.front().host.start) start = rows[k - 1].host_start;
    }
    TimeNs end = start;
    for (const StepExtent& s : sampled_) end = std::max({end, s.window.end, s.host.end});
    return {start, end};
  }

  // Main-thread points in time order: a step boundary is read at the last one at or before it.
  void IndexMainPoints() {
    if (!host_.main_thread.valid()) return;
    auto [begin, end] = trace_.ThreadRows(host_.main_thread);
    for (size_t i = begin; i < end; ++i) {
      if (!graph_.HasSlice(i)) continue;
      main_points_.push_back(graph_.SliceStart(i));
      main_points_.push_back(graph_.SliceEnd(i));
    }
    std::stable_sort(main_points_.begin(), main_points_.end(),
                     [this](uint32_t a, uint32_t b) { return graph_.time[a] < graph_.time[b]; });
  }
  // Replayed time of measured moment |t| on the main thread, and the point it is read at.
  std::pair<TimeNs, uint32_t> At(const std::vector<TimeNs>& time, TimeNs t) const {
    auto it = std::upper_bound(main_points_.begin(), main_points_.end(), t,
                               [this](TimeNs v, uint32_t p) { return v < graph_.time[p]; });
    if (it == main_points_.begin()) return {t, kNoPoint};
    const uint32_t p = *(it - 1);
    return {time[p] + (t - graph_.time[p]), p};
  }

  // Per step row, the ops its host span launched; which rows are the kept steady steps.
  void IndexStepOps() {
    const auto& rows = trace_.steps.rows;
    step_ops_.resize(rows.size());
    rows_kept_.assign(rows.size(), 0);
    for (size_t k = 0; k < rows.size(); ++k) {
      for (const StepExtent& s : sampled_) {
        if (s.host.start == rows[k].host_start && s.number == rows[k].number) rows_kept_[k] = 1;
      }
    }
    const CpuSliceTable& cpu = trace_.cpu_slices;
    for (size_t j = graph_.op_begin; j < graph_.op_end; ++j) {
      const CpuSliceId l = trace_.FindLaunch(trace_.gpu_ops.correlation[j]);
      if (!l.valid() || !graph_.HasSlice(l.value)) continue;
      const TimeNs t = cpu.start[l.value];
      auto it = std::upper_bound(rows.begin(), rows.end(), t,
                                 [](TimeNs v, const auto& r) { return v < r.host_start; });
      if (it == rows.begin()) continue;
      const size_t k = static_cast<size_t>(it - rows.begin()) - 1;
      if (t < rows[k].host_end) step_ops_[k].push_back(static_cast<uint32_t>(j));
    }
  }

  // The step windows of the plugin (step_extents.cc) read from a schedule: a step starts at
  // its ProfilerStep start or where the previous step's work ended, and ends at the later of
  // its host end and the end of the last op it launched.
  std::vector<Window> Windows(const std::vector<TimeNs>& time) const {
    const auto& rows = trace_.steps.rows;
    std::vector<Window> out(rows.size());
    TimeNs prev_end = std::numeric_limits<TimeNs>::min();
    for (size_t k = 0; k < rows.size(); ++k) {
      auto [host_start, start_point] = At(time, rows[k].host_start);
      auto [host_end, end_point] = At(time, rows[k].host_end);
      Window w{std::max(prev_end, host_start), host_end, end_point};
      for (uint32_t j : step_ops_[k]) {
        const uint32_t p = graph_.OpEnd(j);
        if (time[p] > w.end) {
          w.end = time[p];
          w.end_point = p;
        }
      }
      w.end = std::max(w.end, w.start);
      prev_end = w.end;
      out[k] = w;
    }
    return out;
  }

  PathClass EdgeClass(uint32_t e) const {
    switch (graph_.kind[e]) {
      case DepEdgeKind::kGpuBusy: return CachedOpClass(graph_.ItemOf(graph_.src[e]));
      case DepEdgeKind::kLaunch:
      case DepEdgeKind::kStreamOrder: return PathClass::kLaunch;
      case DepEdgeKind::kSync:
      case DepEdgeKind::kEventWait: return PathClass::kSync;
      case DepEdgeKind::kCrossThread: return PathClass::kHost;
      case DepEdgeKind::kHostOrder:
      case DepEdgeKind::kHostGap: {
        const int64_t owner = Owner(e);
        return owner < 0 ? PathClass::kHost : slice_class_[static_cast<size_t>(owner)];
      }
    }
    return PathClass::kHost;
  }
  // Kernel names are classified once each: the kernel table's matching is costly per launch.
  PathClass CachedOpClass(size_t op) const {
    auto [it, added] = op_class_.try_emplace(trace_.gpu_ops.name[op].value, PathClass::kHost);
    if (added) it->second = OpClass(trace_, op);
    return it->second;
  }
  // The host slice whose own time a host edge spans: the slice it starts in, or the parent of
  // the slice it leaves; -1 between top-level slices.
  int64_t Owner(uint32_t e) const {
    const uint32_t p = graph_.src[e];
    const size_t i = graph_.ItemOf(p);
    if (graph_.IsStart(p)) return static_cast<int64_t>(i);
    const CpuSliceId parent = trace_.cpu_slices.parent[i];
    return parent.valid() && graph_.HasSlice(parent.value) ? static_cast<int64_t>(parent.value)
                                                           : -1;
  }
  uint32_t EdgeName(uint32_t e) const {
    switch (graph_.kind[e]) {
      case DepEdgeKind::kGpuBusy: return trace_.gpu_ops.name[graph_.ItemOf(graph_.src[e])].value;
      case DepEdgeKind::kLaunch: return trace_.cpu_slices.name[graph_.ItemOf(graph_.src[e])].value;
      case DepEdgeKind::kSync: return trace_.cpu_slices.name[graph_.ItemOf(graph_.dst[e])].value;
      case DepEdgeKind::kStreamOrder:
      case DepEdgeKind::kEventWait: return trace_.gpu_ops.name[graph_.ItemOf(graph_.dst[e])].value;
      case DepEdgeKind::kCrossThread: return kUntraced;
      case DepEdgeKind::kHostOrder:
      case DepEdgeKind::kHostGap: {
        const int64_t owner = Owner(e);
        if (owner < 0) return kUntraced;
        // Each step's own name differs (ProfilerStep#5, #6, ...): its time between ops is one
        // entry.
        if (host_.roles[static_cast<size_t>(owner)] & kRoleProfilerStep) return kStepGaps;
        return trace_.cpu_slices.name[static_cast<size_t>(owner)].value;
      }
    }
    return kUntraced;
  }

  // Back from the step's last point along the edges that set each time, down to the step's
  // start; each piece goes to its edge's class. The pieces sum to the replayed step.
  void WalkCriticalPath(const Schedule& s, const Window& w,
                        std::array<DurationNs, kPathClassCount>& class_ns,
                        std::map<std::pair<uint8_t, uint32_t>, DurationNs>& entries) const {
    if (w.end_point == kNoPoint) return;
    uint32_t p = w.end_point;
    TimeNs t = w.end;
    while (t > w.start) {
      const uint32_t e = s.binding[p];
      if (e == kNoEdge) {  // a point nothing precedes: its time is measured
        class_ns[static_cast<size_t>(PathClass::kHost)] += t - w.start;
        entries[{static_cast<uint8_t>(PathClass::kHost), kUntraced}] += t - w.start;
        break;
      }
      const uint32_t u = graph_.src[e];
      const TimeNs from = std::max(s.time[u], w.start);
      const DurationNs piece = t - from;
      if (piece > 0) {
        const PathClass c = EdgeClass(e);
        class_ns[static_cast<size_t>(c)] += piece;
        entries[{static_cast<uint8_t>(c), EdgeName(e)}] += piece;
      }
      p = u;
      t = s.time[u];
    }
  }

  // The median replayed step with |weight|, and the median saving against |replayed|.
  std::pair<DurationNs, DurationNs> ReplayAfter(const std::vector<DurationNs>& weight,
                                                const std::vector<Window>& replayed) const {
    Schedule s = Simulate(graph_, index_, weight, kInReplay);
    std::vector<Window> after = Windows(s.time);
    std::vector<DurationNs> steps_after, savings;
    for (size_t k = 0; k < rows_kept_.size(); ++k) {
      if (!rows_kept_[k]) continue;
      const DurationNs a = after[k].end - after[k].start;
      steps_after.push_back(a);
      savings.push_back((replayed[k].end - replayed[k].start) - a);
    }
    return {MedianOf(steps_after), MedianOf(savings)};
  }

  // Takes one fix family's waits out of |w|; false when nothing changes.
  bool ApplyWhatIf(WhatIf what_if, std::vector<DurationNs>& w) const {
    bool changed = false;
    for (size_t e = 0; e < w.size(); ++e) {
      const DepEdgeKind k = graph_.kind[e];
      const bool host_edge = k == DepEdgeKind::kHostOrder || k == DepEdgeKind::kHostGap;
      switch (what_if) {
        case WhatIf::kInputRemoved:
          if (host_edge && EdgeClass(static_cast<uint32_t>(e)) == PathClass::kInput && w[e] > 0) {
            w[e] = 0;
            changed = true;
          }
          break;
        case WhatIf::kSyncsRemoved:
          if (k == DepEdgeKind::kSync) {
            w[e] = kRemovedEdge;
            changed = true;
          }
          break;
        case WhatIf::kLaunchOverheadRemoved:
          if (host_edge && EdgeClass(static_cast<uint32_t>(e)) == PathClass::kLaunch && w[e] > 0) {
            w[e] = 0;
            changed = true;
          }
          break;
      }
    }
    return changed;
  }

  static constexpr uint32_t kNoPoint = std::numeric_limits<uint32_t>::max();
  const Trace& trace_;
  const TraceAnalysis& analysis_;
  const ReplayOptions& options_;
  HostActivity host_;
  DependencyGraph graph_;
  EdgeIndex index_;
  std::vector<PathClass> slice_class_;
  std::vector<uint32_t> main_points_;
  std::vector<std::vector<uint32_t>> step_ops_;
  std::vector<uint8_t> rows_kept_;
  std::vector<StepExtent> sampled_;                           // the steady steps replayed
  mutable std::unordered_map<uint32_t, PathClass> op_class_;  // by kernel name id
};

}  // namespace

ReplayResult ComputeReplay(const Trace& trace, const TraceAnalysis& analysis,
                           const ReplayOptions& options) {
  return Replayer(trace, analysis, options).Run();
}

}  // namespace gpuwhy
