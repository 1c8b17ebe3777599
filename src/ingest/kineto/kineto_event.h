// One trace event as read from the JSON, before it is given meaning. Views point into the
// parser's buffers and are valid only while the event is being handled.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "model/tables.h"

namespace gpuwhy {

// pid/tid are integers in modern traces, strings ("stream 7", "Spans") in others.
struct KinetoId {
  bool present = false;
  bool is_number = false;
  int64_t number = 0;
  std::string_view text;
};

struct KinetoArgs {
  int64_t device = kNoValue;
  int64_t stream = kNoValue;
  int64_t correlation = kNoValue;
  int64_t external_id = kNoValue;
  int64_t bytes = kNoValue;
  LaunchConfig launch;
  // Collective metadata.
  std::string_view collective_name;
  std::string_view dtype;
  std::string_view process_group_name;
  std::string_view process_group_desc;
  std::string_view in_split_sizes;
  std::string_view out_split_sizes;
  int64_t in_nelems = kNoValue;
  int64_t out_nelems = kNoValue;
  int64_t group_size = kNoValue;
  int64_t sequence = kNoValue;
  // [memory] instants.
  int64_t device_type = kNoValue;
  int64_t device_id = kNoValue;
  int64_t addr = 0;
  int64_t total_allocated = kNoValue;
  int64_t total_reserved = kNoValue;
  // cuda_sync.
  int64_t wait_on_stream = kNoValue;
  int64_t wait_on_event_correlation = kNoValue;
  // Shapes (raw JSON) when record_shapes was on.
  std::string_view input_dims;
  std::string_view input_types;
  std::string_view concrete_inputs;  // "Concrete Inputs": scalar args as strings (PyTorch 2.x)
  int64_t flops = kNoValue;          // profile(with_flops=True)
  // "M" metadata events: args.name.
  std::string_view name;
  // "C" counter events: every numeric arg.
  std::vector<std::pair<std::string_view, double>> counter_values;
};

struct KinetoEvent {
  char ph = 0;
  std::string_view cat;
  std::string_view name;
  KinetoId pid;
  KinetoId tid;
  std::string_view ts;   // exact decimal text, microseconds
  std::string_view dur;  // exact decimal text, microseconds
  // The fast reader converts plain decimals ("1234.567") to ns as it scans them; when these
  // are set they equal ParseMicrosecondsToNs(ts / dur) and the text is not parsed again.
  bool ts_ns_known = false;
  bool dur_ns_known = false;
  TimeNs ts_ns = 0;
  DurationNs dur_ns = 0;
  int64_t flow_id = kNoValue;
  bool has_args = false;
  KinetoArgs args;

  // Clears what the last event set. Both readers set has_args before they write any of
  // args, so an event without "args" (flows, most instants) leaves them as they were.
  void Reset() {
    ph = 0;
    cat = name = ts = dur = {};
    ts_ns_known = dur_ns_known = false;
    pid = tid = {};
    flow_id = kNoValue;
    if (has_args) {
      args.counter_values.clear();  // keeps its capacity for the next counter event
      auto counters = std::move(args.counter_values);
      args = KinetoArgs();
      args.counter_values = std::move(counters);
    }
    has_args = false;
  }
};

}  // namespace gpuwhy
