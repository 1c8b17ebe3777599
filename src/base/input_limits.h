// How many bytes gpuwhy takes in from one input, per kind of input: the one table behind every
// size refusal (README, "Failure and output policy"). Inputs read whole (metric logs, node logs,
// reports, summaries, the token file) are bounded by their decompressed size, so a gzip bomb is
// refused after its limit instead of ending in bad_alloc; a streamed trace is bounded per event,
// so one 2 GB string is refused after its limit instead of buffered.
//
// GPUWHY_INPUT_LIMITS overrides the table: "SIZE" for every kind, or "KIND=SIZE,..." (SIZE in
// bytes with an optional K, M or G suffix, powers of 1024; 0 means no limit).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

// X-macro: enum name, id (in GPUWHY_INPUT_LIMITS and messages), what it is, default bytes.
#define GPUWHY_INPUT_LIMITS(X)                                                         \
  X(kMetricLog, "metric_log", "metric log or recording", uint64_t{1} << 30)            \
  X(kNodeLog, "node_log", "node log or command output", uint64_t{256} << 20)           \
  X(kReport, "report", "gpuwhy JSON report", uint64_t{256} << 20)                      \
  X(kRankSummary, "rank_summary", "rank summary", uint64_t{256} << 20)                 \
  X(kTraceEvent, "trace_event", "trace event or top-level value", uint64_t{64} << 20)  \
  X(kTokenFile, "token_file", "token file", uint64_t{64} << 10)                        \
  X(kProfileSummary, "profile_summary", "profiler summary report", uint64_t{64} << 20) \
  X(kConfig, "config", "rule config file (--config)", uint64_t{1} << 20)               \
  X(kOther, "other", "file", uint64_t{1} << 30)

enum class InputLimit : uint8_t {
#define GPUWHY_LIMIT_ENUM(name, id, what, bytes) name,
  GPUWHY_INPUT_LIMITS(GPUWHY_LIMIT_ENUM)
#undef GPUWHY_LIMIT_ENUM
};

inline constexpr const char* kInputLimitsEnv = "GPUWHY_INPUT_LIMITS";

std::string_view InputLimitId(InputLimit kind);
std::string_view InputLimitWhat(InputLimit kind);
uint64_t DefaultInputLimit(InputLimit kind);

// The limit for |kind| after GPUWHY_INPUT_LIMITS (read on every call, so tests may set it);
// 0 means none. An override that cannot be parsed is an error naming the variable.
StatusOr<uint64_t> MaxInputBytes(InputLimit kind);
// The same from an override text (exposed for tests).
StatusOr<uint64_t> MaxInputBytes(InputLimit kind, std::string_view override_text);

// "over the 256 MiB limit for a node log or command output (GPUWHY_INPUT_LIMITS=node_log=SIZE
// raises it)": the tail of every refusal.
std::string DescribeInputLimit(InputLimit kind, uint64_t limit);

}  // namespace gpuwhy
