// A Kineto trace made of copies of one capture laid end to end, as concatenated captures
// and big traces built from copies of a real one are: every copy keeps its step numbers
// (ProfilerStep#N repeats), so analyses must look steps up by position, not by number.
// Used by the repeated-step tests and the benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace gpuwhy {

struct RepeatTraceOptions {
  int copies = 2;
  // When > 0, copies are added until the output holds at least this many bytes (copies is
  // then a minimum).
  uint64_t min_bytes = 0;
  // Idle time between one copy's last event end and the next copy's first event, µs.
  int64_t gap_us = 1000;
};

struct RepeatTraceSummary {
  int copies = 0;
  uint64_t bytes = 0;
  int64_t shift_us = 0;  // how far each copy lies after the one before it
};

// Reads the Kineto JSON at |input_path| (plain or gzip) and writes |out_path| (plain JSON):
// the top-level members unchanged and traceEvents repeated. Copy k has every "ts" moved by
// k × shift_us (the capture's span plus the gap, whole µs so the decimal text stays exact)
// and every linking id ("id", args "correlation", "External id") moved past copy k-1's, so
// no event links across copies. Fails on JSON simdjson does not accept.
Status WriteRepeatedTrace(const std::string& input_path, const std::string& out_path,
                          const RepeatTraceOptions& options, RepeatTraceSummary* summary = nullptr);

}  // namespace gpuwhy
