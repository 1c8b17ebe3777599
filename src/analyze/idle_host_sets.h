// Host states the idle-gap attribution intersects with device gaps, as interval sets built
// in one pass per thread, plus "innermost slice" segments for naming what the host ran.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analyze/host_activity.h"
#include "base/interval_set.h"
#include "model/trace.h"

namespace gpuwhy {

// Holes up to this long between two launch calls of one thread still count as launching:
// eager PyTorch spends 2-20 µs of dispatch per op between its launches.
inline constexpr DurationNs kLaunchBridgeNs = 20 * kNsPerUs;

// A collective call that launches GPU work counts as waiting on the collective (comm) only
// when it is at least this long (and at least half its kernels' time): a non-blocking NCCL
// call returns in tens of microseconds.
inline constexpr DurationNs kMinBlockingCollectiveNs = 100 * kNsPerUs;

// [start, end()) during which `row` was the innermost host slice of its thread. 16 bytes, not
// 24: a 1 GB trace has millions. A slice innermost for longer than kMaxHostSegmentNs is
// stored as consecutive segments of the same row (the overlaps summed come out the same).
struct HostSegment {
  TimeNs start = 0;
  uint32_t length = 0;
  uint32_t row = 0;
  TimeNs end() const { return start + length; }
};
inline constexpr DurationNs kMaxHostSegmentNs = UINT32_MAX;

struct IdleHostSets {
  IntervalSet input;  // main thread inside a DataLoader __next__
  // A launching thread inside a collective op (nccl:, gloo:, c10d::, ...) that blocks it: a
  // blocking call below, no GPU work, or a call long against its kernels (see .cc).
  IntervalSet comm;
  IntervalSet drain;  // from a blocking sync's start to the end of that thread's next launch
  // Launch calls (holes up to kLaunchBridgeNs bridged) and framework dispatch: outermost
  // aten::* ops and autograd nodes that launch GPU work somewhere below them.
  IntervalSet launch;
  IntervalSet busy;  // any op, annotation, Python frame or API call (not ProfilerStep)
  // Per launching thread, sorted and disjoint.
  std::vector<std::vector<HostSegment>> segments;
};

IdleHostSets BuildIdleHostSets(const Trace& trace, const HostActivity& host);

// Adds, per innermost slice name, its overlap with |set| (summed over threads).
void AccumulateHostNames(const Trace& trace, const std::vector<std::vector<HostSegment>>& segments,
                         const IntervalSet& set, std::unordered_map<uint32_t, DurationNs>& by_name);

}  // namespace gpuwhy
