#include "analyze/launch_queue.h"

#include <algorithm>

namespace gpuwhy {
namespace {

StreamQueue SummarizeQueue(const std::vector<QueueEvent>& events, size_t begin, size_t end,
                           int64_t full_length, DurationNs trace_duration) {
  StreamQueue q;
  q.device = events[begin].device;
  q.stream = events[begin].stream;
  q.series.reserve(end - begin);
  int64_t length = 0;
  std::vector<double> values;
  values.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    length += events[i].delta;
    q.series.push_back({events[i].ts, length});
    values.push_back(static_cast<double>(length));
  }
  q.samples = Summarize(values);
  // Each value holds until the next event; the last one has no extent (as in HTA).
  double weighted = 0;
  for (size_t i = 0; i + 1 < q.series.size(); ++i) {
    DurationNs hold = q.series[i + 1].ts - q.series[i].ts;
    weighted += static_cast<double>(q.series[i].length) * static_cast<double>(hold);
    if (q.series[i].length >= full_length) q.full_time += hold;
  }
  DurationNs extent = q.series.back().ts - q.series.front().ts;
  q.time_weighted_mean = extent > 0 ? weighted / static_cast<double>(extent) : q.samples.mean;
  q.full_ratio = trace_duration > 0
                     ? static_cast<double>(q.full_time) / static_cast<double>(trace_duration)
                     : 0;
  return q;
}

}  // namespace

std::vector<StreamQueue> BuildStreamQueues(std::vector<QueueEvent> events, int64_t full_length,
                                           DurationNs trace_duration) {
  std::sort(events.begin(), events.end(), [](const QueueEvent& a, const QueueEvent& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.delta > b.delta;
  });
  std::vector<StreamQueue> queues;
  size_t begin = 0;
  for (size_t i = 1; i <= events.size(); ++i) {
    if (i < events.size() && events[i].device == events[begin].device &&
        events[i].stream == events[begin].stream) {
      continue;
    }
    if (i > begin) queues.push_back(SummarizeQueue(events, begin, i, full_length, trace_duration));
    begin = i;
  }
  return queues;
}

}  // namespace gpuwhy
