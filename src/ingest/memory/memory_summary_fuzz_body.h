// The body shared by the deterministic mutation fuzzer (memory_summary_fuzz_test.cc, in ctest)
// and the libFuzzer target (fuzz/memory_summary_fuzzer.cc, clang only): parse |data| as
// torch.cuda.memory_summary() text (tables, memory_stats() dicts, CUDA out-of-memory messages) and
// check the contract:
// no crash, no exception, no undefined behaviour (under the sanitizers; sizes like "9e99 GiB" must
// not overflow), an error names the input ("NAME: ..."), and every value read is either absent
// (kNoValue) or not negative.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "ingest/memory/memory_summary_parser.h"

namespace gpuwhy {

inline constexpr std::string_view kMemorySummaryFuzzName = "fuzz.memory_summary.txt";

// What broke the contract; "" when it holds (the caller reports or aborts).
inline std::string FuzzMemorySummaryParser(std::string_view data) {
  StatusOr<MemorySnapshot> parsed = ParseMemorySummaryText(data, kMemorySummaryFuzzName);
  if (!parsed.ok()) {
    return parsed.status().message().starts_with(kMemorySummaryFuzzName)
               ? ""
               : "error without the name: " + parsed.status().message();
  }
  if (parsed->stats.empty() && parsed->oom_messages.empty()) return "no table and no message";
  const auto valid = [](int64_t v) { return v == kNoValue || v >= 0; };
  for (const AllocatorStats& stats : parsed->stats) {
    if (!valid(stats.num_ooms) || !valid(stats.num_alloc_retries) ||
        !valid(stats.num_sync_all_streams) || !valid(stats.num_device_alloc) ||
        !valid(stats.num_device_free))
      return "negative counter";
    for (const StatValues* v : {&stats.oversize_allocations, &stats.oversize_segments}) {
      if (!valid(v->current) || !valid(v->peak) || !valid(v->allocated) || !valid(v->freed))
        return "a negative oversize counter";
    }
    for (const PoolStats* pools :
         {&stats.allocated_bytes, &stats.active_bytes, &stats.requested_bytes,
          &stats.reserved_bytes, &stats.non_releasable_bytes, &stats.allocations,
          &stats.active_allocations, &stats.segments, &stats.non_releasable_allocations}) {
      for (const StatValues& v : *pools) {
        if (!valid(v.current) || !valid(v.peak) || !valid(v.allocated) || !valid(v.freed)) {
          return "a negative value in device " + std::to_string(stats.device);
        }
      }
    }
  }
  for (const OomMessage& m : parsed->oom_messages) {
    if (m.requested < 0) return "an OOM message without its request";
    for (int64_t v :
         {m.capacity, m.free, m.process_in_use, m.allocated_by_pytorch, m.reserved_unallocated}) {
      if (!valid(v)) return "a negative size in an OOM message";
    }
    if (m.other_processes < 0 || m.other_processes_bytes < 0) return "negative other processes";
    if (m.line == 0 || m.line > static_cast<size_t>(std::count(data.begin(), data.end(), '\n')) + 1)
      return "an OOM message outside the text's lines";
  }
  return "";
}

}  // namespace gpuwhy
