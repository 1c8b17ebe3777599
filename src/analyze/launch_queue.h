// Per-stream launch queue length over time, as HTA defines it: +1 when a launch call
// starts, -1 when the GPU op it enqueued starts.
#pragma once

#include <vector>

#include "analyze/distribution.h"
#include "base/time.h"

namespace gpuwhy {

// Fields ordered widest first: 24 bytes instead of 32 with padding; two per launched op
// are live at the analysis peak.
struct QueueEvent {
  int64_t stream = 0;
  TimeNs ts = 0;
  int32_t device = 0;
  int32_t delta = 0;  // +1 launch call start, -1 GPU op start
};
static_assert(sizeof(QueueEvent) == 24);

struct QueuePoint {
  TimeNs ts = 0;
  int64_t length = 0;
};

struct StreamQueue {
  int32_t device = 0;
  int64_t stream = 0;
  std::vector<QueuePoint> series;  // value after each event (a step function)
  DistributionSummary samples;  // HTA queue_length_summary: pandas describe() of the event samples
  double time_weighted_mean = 0;  // averaged over time between the first and last event
  DurationNs full_time = 0;       // HTA duration_at_max_queue_length
  double full_ratio = 0;          // HTA relative_duration_at_max_queue_length (of the span)
};

// One stream's queue changes: +1 at each launch call start, -1 at each op start.
struct StreamLaunchTimes {
  int32_t device = 0;
  int64_t stream = 0;
  std::vector<TimeNs> launches;  // call starts, in any order
  std::vector<TimeNs> starts;    // op starts, in any order
};

// The queues from each stream's times, given sorted by (device, stream) with one entry per
// stream; each stream's times are freed once its queue is built. Same queues as the events
// +1 at each launch and -1 at each start given to BuildStreamQueues below, without an event
// (24 bytes) per change held at once: launch_stats fills these from its records directly.
std::vector<StreamQueue> BuildStreamQueues(std::vector<StreamLaunchTimes> streams,
                                           int64_t full_length, DurationNs trace_duration);

// Builds one StreamQueue per (device, stream), sorted by it. Ties at one timestamp put
// the launch first so a launch and its own op never dip below zero.
std::vector<StreamQueue> BuildStreamQueues(std::vector<QueueEvent> events, int64_t full_length,
                                           DurationNs trace_duration);

}  // namespace gpuwhy
