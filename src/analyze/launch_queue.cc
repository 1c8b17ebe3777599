#include "analyze/launch_queue.h"

#include <algorithm>
#include <map>
#include <utility>

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

// Orders |events| by (device, stream, ts, launch before op) when every delta is +1 or -1, as
// launch_stats makes them: per stream, the launch events come in call order and the op
// events in launch order, each (nearly) sorted by time already, so a stable split by stream
// and a merge of the two runs replace a full sort. False (events untouched) otherwise.
bool GroupByStream(std::vector<QueueEvent>& events) {
  using Key = std::pair<int32_t, int64_t>;
  std::map<Key, size_t> streams;  // few: a handful of streams per device
  for (const QueueEvent& e : events) {
    if (e.delta != 1 && e.delta != -1) return false;
    streams.emplace(Key{e.device, e.stream}, 0);
  }
  std::vector<std::vector<TimeNs>> launches(streams.size()), starts(streams.size());
  size_t index = 0;
  for (auto& [key, i] : streams) i = index++;
  // Two walks: the first counts each stream's events so its lists are reserved exactly
  // (grown by doubling they held up to twice the events' timestamps at once).
  auto for_each_event = [&](auto&& visit) {
    Key last{};
    size_t i = streams.size();  // the last event's stream: consecutive events mostly share it
    for (const QueueEvent& e : events) {
      Key key{e.device, e.stream};
      if (i == streams.size() || key != last) i = streams.find(key)->second, last = key;
      visit(e, i);
    }
  };
  std::vector<size_t> up_count(streams.size(), 0), down_count(streams.size(), 0);
  for_each_event(
      [&](const QueueEvent& e, size_t i) { ++(e.delta > 0 ? up_count : down_count)[i]; });
  for (size_t k = 0; k < streams.size(); ++k) {
    launches[k].reserve(up_count[k]);
    starts[k].reserve(down_count[k]);
  }
  for_each_event([&](const QueueEvent& e, size_t i) {
    (e.delta > 0 ? launches[i] : starts[i]).push_back(e.ts);
  });
  size_t out = 0;
  for (const auto& [key, i] : streams) {
    std::vector<TimeNs>& up = launches[i];
    std::vector<TimeNs>& down = starts[i];
    if (!std::is_sorted(up.begin(), up.end())) std::sort(up.begin(), up.end());
    if (!std::is_sorted(down.begin(), down.end())) std::sort(down.begin(), down.end());
    size_t a = 0, b = 0;
    while (a < up.size() || b < down.size()) {
      // At one timestamp the launch goes first (delta descending).
      bool take_up = b == down.size() || (a < up.size() && up[a] <= down[b]);
      TimeNs ts = take_up ? up[a++] : down[b++];
      events[out++] = {
          .stream = key.second, .ts = ts, .device = key.first, .delta = take_up ? +1 : -1};
    }
    up = {};
    down = {};
  }
  return true;
}

}  // namespace

std::vector<StreamQueue> BuildStreamQueues(std::vector<QueueEvent> events, int64_t full_length,
                                           DurationNs trace_duration) {
  auto by_key = [](const QueueEvent& a, const QueueEvent& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.delta > b.delta;
  };
  // Every field is in the key, so any order the key sorts is the same vector: the stable
  // bucketing below gives std::sort's result without comparing millions of events.
  if (!GroupByStream(events)) std::sort(events.begin(), events.end(), by_key);
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
