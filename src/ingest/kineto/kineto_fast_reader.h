// A single-pass reader for the shapes Kineto writes: one object per event, plain keys,
// strings without escapes, numbers, nested "args". It finds the end of the event while
// reading it, so the common case costs one pass over the bytes instead of a bracket scan
// plus a simdjson parse. Anything unusual (escapes, odd tokens) is declined and goes
// through simdjson (KinetoEventParser), which stays the reference for correctness.
#pragma once

#include <cstddef>

#include "ingest/kineto/kineto_event.h"

namespace gpuwhy {

enum class FastReadResult {
  kOk,          // event read; *consumed is its length
  kIncomplete,  // the object does not end before |size|: more bytes are needed
  kDeclined,    // unusual content: use the general path
};

// |data| points at '{'. Reads at most |size| bytes (and never past them).
FastReadResult ReadEventFast(const char* data, size_t size, KinetoEvent& event, size_t* consumed);

}  // namespace gpuwhy
