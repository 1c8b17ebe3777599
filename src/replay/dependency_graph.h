// One rank's execution dependency graph (docs/metrics/critical_path.md): every host slice and
// GPU op is two points in time (start, end); edges say which point must come before which and
// by how much. Host points chain per thread in nesting order, each launch call points at the
// GPU ops it issued, ops chain per stream, a host call that waits on the GPU (synchronize,
// blocking copy, .item()) ends after the op it waited for, a stream that waits on an event
// starts after the op recorded before it, and a helper thread resumes after the main thread.
// Flat vectors indexed by point and edge: memory and time stay linear in events.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyze/host_activity.h"
#include "base/interval_set.h"
#include "base/time.h"
#include "model/trace.h"

namespace gpuwhy {

enum class DepEdgeKind : uint8_t {
  kHostOrder,    // consecutive points inside one top-level host slice
  kHostGap,      // end of a top-level host slice to the next one's start, same thread
  kCrossThread,  // a helper thread's top-level slice starts after the main thread's last point
  kLaunch,       // launch call start -> GPU op start
  kStreamOrder,  // previous op end -> op start, same stream
  kGpuBusy,      // op start -> op end
  kSync,         // awaited op end -> the waiting host call's end
  kEventWait,    // op recorded before cudaEventRecord end -> first op after cudaStreamWaitEvent
};
inline constexpr size_t kDepEdgeKindCount = 8;

// Which model an edge belongs to: the replay's, HolisticTraceAnalysis' critical-path graph,
// or both (HTA chains only cpu_op and runtime events and adds a launch or a stream edge per op).
// kHtaTimed: in HTA's graph the edge weighs the measured time between its points, else 0.
enum DepEdgeModel : uint8_t { kInReplay = 1, kInHta = 2, kHtaTimed = 4 };

struct DependencyGraphOptions {
  bool hta = false;  // also build HTA's host chains (tests comparing with HTA)
  // Only host slices and GPU ops that start inside this window (empty: the whole trace), so a
  // replay of a few steps costs memory for those steps alone.
  Interval window;
};

// Host rows [row_begin, row_end) of one thread in the window, and the point of the first.
struct SliceSegment {
  uint32_t row_begin = 0;
  uint32_t row_end = 0;
  uint32_t point_base = 0;
};

struct DependencyGraph {
  // Points: the window's host slices two each (start, end) thread by thread, then its GPU ops
  // two each. Rows outside the window have no point (HasSlice, HasOp).
  size_t slice_count = 0;
  size_t op_count = 0;
  std::vector<SliceSegment> segments;  // by row_begin
  uint32_t op_begin = 0;               // gpu_ops rows [op_begin, op_end) are in the window
  uint32_t op_end = 0;
  std::vector<TimeNs> time;  // measured time of each point

  std::vector<uint32_t> src;
  std::vector<uint32_t> dst;
  std::vector<DepEdgeKind> kind;
  std::vector<uint8_t> models;     // DepEdgeModel bits
  std::vector<DurationNs> weight;  // the replay's delay along the edge (see the doc)

  // Per host slice of the window (LocalSlice): the op a blocking call waited for (-1: none).
  std::vector<int64_t> awaited_op;
  DurationNs launch_latency_ns = 0;  // the rank's median launch-to-start delay on a free stream
  DurationNs queue_gap_ns = 0;       // the rank's median gap between queued ops on one stream
  int64_t event_waits = 0;           // cross-stream waits resolved to an op pair
  int64_t inferred_waits = 0;        // cross-stream waits inferred from an op's late start
  int64_t sync_waits = 0;            // host calls resolved to the op they waited for

  size_t size() const { return time.size(); }
  size_t edge_count() const { return src.size(); }
  bool HasSlice(size_t i) const {
    const SliceSegment* s = SegmentOf(i);
    return s != nullptr && i < s->row_end;
  }
  bool HasOp(size_t j) const { return j >= op_begin && j < op_end; }
  // Points of host row |i| and GPU op row |j|, both in the window.
  uint32_t SliceStart(size_t i) const {
    const SliceSegment* s = SegmentOf(i);
    return static_cast<uint32_t>(s->point_base + 2 * (i - s->row_begin));
  }
  uint32_t SliceEnd(size_t i) const { return SliceStart(i) + 1; }
  size_t LocalSlice(size_t i) const { return SliceStart(i) / 2; }
  uint32_t OpStart(size_t j) const {
    return static_cast<uint32_t>(2 * (slice_count + j - op_begin));
  }
  uint32_t OpEnd(size_t j) const { return OpStart(j) + 1; }
  bool IsOpPoint(uint32_t p) const { return p >= 2 * slice_count; }
  // The host row or GPU op row of point |p|.
  size_t ItemOf(uint32_t p) const {
    if (IsOpPoint(p)) return p / 2 - slice_count + op_begin;
    auto it = std::upper_bound(segments.begin(), segments.end(), p,
                               [](uint32_t v, const SliceSegment& s) { return v < s.point_base; });
    --it;
    return it->row_begin + (p - it->point_base) / 2;
  }
  bool IsStart(uint32_t p) const { return p % 2 == 0; }
  // time[dst] - time[src], never negative.
  DurationNs Measured(size_t e) const {
    DurationNs d = time[dst[e]] - time[src[e]];
    return d > 0 ? d : 0;
  }
  DurationNs HtaWeight(size_t e) const { return (models[e] & kHtaTimed) ? Measured(e) : 0; }
  size_t Bytes() const;

 private:
  const SliceSegment* SegmentOf(size_t i) const {
    auto it = std::upper_bound(segments.begin(), segments.end(), i,
                               [](size_t v, const SliceSegment& s) { return v < s.row_begin; });
    return it == segments.begin() ? nullptr : &*(it - 1);
  }
};

DependencyGraph BuildDependencyGraph(const Trace& trace, const HostActivity& host,
                                     const DependencyGraphOptions& options = {});

}  // namespace gpuwhy
