#include "analyze/launch_queue.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

namespace gpuwhy {
namespace {

// One stream's queue from its |count| events, which |for_each_event| visits in order as
// (ts, delta).
template <typename ForEachEvent>
StreamQueue SummarizeQueue(int32_t device, int64_t stream, size_t count,
                           ForEachEvent&& for_each_event, int64_t full_length,
                           DurationNs trace_duration) {
  StreamQueue q;
  q.device = device;
  q.stream = stream;
  q.series.reserve(count);
  int64_t length = 0;
  std::vector<double> values;
  values.reserve(count);
  for_each_event([&](TimeNs ts, int32_t delta) {
    length += delta;
    q.series.push_back({ts, length});
    values.push_back(static_cast<double>(length));
  });
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

// The queues when every delta is +1 or -1, as launch_stats makes them: per stream, the
// launch events come in call order and the op events in launch order, each (nearly) sorted
// by time already, so a split by stream and a merge of the two runs give the order of a full
// sort by (device, stream, ts, launch first). The events are freed once split, before the
// queues' series are built (at 1 GB: 37 MB of events against 37 MB of series and samples).
// Nullopt (events untouched) when some delta is another value.
std::optional<std::vector<StreamQueue>> QueuesByStream(std::vector<QueueEvent>& events,
                                                       int64_t full_length,
                                                       DurationNs trace_duration) {
  using Key = std::pair<int32_t, int64_t>;
  std::map<Key, size_t> streams;  // few: a handful of streams per device
  for (const QueueEvent& e : events) {
    if (e.delta != 1 && e.delta != -1) return std::nullopt;
    streams.emplace(Key{e.device, e.stream}, 0);
  }
  size_t index = 0;
  for (auto& [key, i] : streams) i = index++;
  auto for_each_event = [&](auto&& visit) {
    Key last{};
    size_t i = streams.size();  // the last event's stream: consecutive events mostly share it
    for (const QueueEvent& e : events) {
      Key key{e.device, e.stream};
      if (i == streams.size() || key != last) i = streams.find(key)->second, last = key;
      visit(e, i);
    }
  };
  // Counted first so each stream's lists are reserved exactly (grown by doubling they held
  // up to twice the events' timestamps at once).
  std::vector<size_t> up_count(streams.size(), 0), down_count(streams.size(), 0);
  for_each_event(
      [&](const QueueEvent& e, size_t i) { ++(e.delta > 0 ? up_count : down_count)[i]; });
  std::vector<StreamLaunchTimes> times(streams.size());
  for (const auto& [key, i] : streams) {
    times[i].device = key.first;
    times[i].stream = key.second;
    times[i].launches.reserve(up_count[i]);
    times[i].starts.reserve(down_count[i]);
  }
  for_each_event([&](const QueueEvent& e, size_t i) {
    (e.delta > 0 ? times[i].launches : times[i].starts).push_back(e.ts);
  });
  std::vector<QueueEvent>().swap(events);
  return BuildStreamQueues(std::move(times), full_length, trace_duration);
}

}  // namespace

std::vector<StreamQueue> BuildStreamQueues(std::vector<StreamLaunchTimes> streams,
                                           int64_t full_length, DurationNs trace_duration) {
  std::vector<StreamQueue> queues;
  queues.reserve(streams.size());
  for (StreamLaunchTimes& stream : streams) {
    std::vector<TimeNs>& up = stream.launches;
    std::vector<TimeNs>& down = stream.starts;
    if (!std::is_sorted(up.begin(), up.end())) std::sort(up.begin(), up.end());
    if (!std::is_sorted(down.begin(), down.end())) std::sort(down.begin(), down.end());
    auto merged = [&up, &down](auto&& visit) {
      size_t a = 0, b = 0;
      while (a < up.size() || b < down.size()) {
        // At one timestamp the launch goes first (delta descending).
        bool take_up = b == down.size() || (a < up.size() && up[a] <= down[b]);
        visit(take_up ? up[a++] : down[b++], take_up ? +1 : -1);
      }
    };
    queues.push_back(SummarizeQueue(stream.device, stream.stream, up.size() + down.size(), merged,
                                    full_length, trace_duration));
    up = {};
    down = {};
  }
  return queues;
}

std::vector<StreamQueue> BuildStreamQueues(std::vector<QueueEvent> events, int64_t full_length,
                                           DurationNs trace_duration) {
  if (std::optional<std::vector<StreamQueue>> queues =
          QueuesByStream(events, full_length, trace_duration)) {
    return std::move(*queues);
  }
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
    if (i > begin) {
      auto in_range = [&events, begin, i](auto&& visit) {
        for (size_t k = begin; k < i; ++k) visit(events[k].ts, events[k].delta);
      };
      queues.push_back(SummarizeQueue(events[begin].device, events[begin].stream, i - begin,
                                      in_range, full_length, trace_duration));
    }
    begin = i;
  }
  return queues;
}

}  // namespace gpuwhy
