// The body shared by the deterministic mutation fuzzer (memory_timeline_fuzz_test.cc, in ctest)
// and the libFuzzer target (fuzz/memory_timeline_fuzzer.cc, clang only): parse |data| as a
// profiler memory timeline and check the contract: no crash, no undefined behaviour (under the
// sanitizers; numbers past int64 must not overflow), an error names the input, the columns have
// one length, every action is 1..4 and every category in range, and times are kNoValue or not
// negative.
#pragma once

#include <string>
#include <string_view>

#include "ingest/memory/memory_timeline_importer.h"

namespace gpuwhy {

inline constexpr std::string_view kMemoryTimelineFuzzName = "fuzz.memory_timeline.json";

// What broke the contract; "" when it holds (the caller reports or aborts).
inline std::string FuzzMemoryTimelineParser(std::string_view data) {
  StatusOr<MemoryTimeline> t = ParseMemoryTimeline(data, kMemoryTimelineFuzzName);
  if (!t.ok()) {
    return t.status().message().starts_with(kMemoryTimelineFuzzName)
               ? ""
               : "error without the name: " + t.status().message();
  }
  const size_t n = t->size();
  if (t->action.size() != n || t->bytes.size() != n || t->category.size() != n)
    return "columns of different lengths";
  for (size_t i = 0; i < n; ++i) {
    const auto action = static_cast<size_t>(t->action[i]);
    if (action < 1 || action > kTimelineActionCount) return "an action outside 1..4";
    if (static_cast<size_t>(t->category[i]) >= kMemoryCategoryCount) return "a category past 7";
    if (t->time[i] != kNoValue && t->time[i] < 0) return "a negative time";
  }
  return "";
}

}  // namespace gpuwhy
