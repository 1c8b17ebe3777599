// PyTorch profiler memory timelines (export_memory_timeline's raw JSON: a list of
// [time_ns, action, bytes, category] rows for one device, the file HTA's memory analysis reads)
// into MemoryTimeline (model/memory_timeline.h). Read as a stream of bytes by a state machine of
// its own, not a JSON tree: memory stays one row's columns per entry, and nesting costs a counter,
// never a stack frame. A row that is not four integers, or has an action outside 1..4 or a time
// below -1, is skipped and counted (malformed_event, bad_timestamp, with its entry index); a
// category outside 0..7 is kept as unknown and counted (unknown_category); a file cut before its
// closing ']' keeps the rows read and is flagged truncated.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/memory_timeline.h"

namespace gpuwhy {

// Whether |head| opens like such a file: '[' then a first row of four integers (a Chrome-trace
// array opens with an object, so the two never meet).
bool LooksLikeMemoryTimeline(std::string_view head);

// |name| prefixes every message; an error only when the bytes open with no JSON list.
StatusOr<MemoryTimeline> ParseMemoryTimeline(std::string_view bytes, std::string_view name);

// Streams |path| (plain or gzip), at most the "other" input limit (base/input_limits.h) of
// decompressed bytes; past it the rest is dropped and the timeline flagged truncated.
StatusOr<MemoryTimeline> ImportMemoryTimeline(const std::string& path);

}  // namespace gpuwhy
