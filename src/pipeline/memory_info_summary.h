// What `gpuwhy info` shows of an allocator memory snapshot, computed once from the model so the
// text and JSON renderings read the same numbers (tests/memory_snapshot_counts.py checks them
// against Python's unpickler).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/memory_timeline_stats.h"
#include "model/memory_snapshot.h"
#include "model/memory_timeline.h"

namespace gpuwhy {

struct CountAndBytes {
  int64_t count = 0;
  int64_t bytes = 0;
};

struct MemoryInfoSummary {
  std::string path;
  uint64_t file_bytes = 0;
  SnapshotLayout layout;
  std::string version_hint;     // "PyTorch 2.1+ layout (...)", from the layout
  std::string optional_fields;  // "requested_size, allocator_settings": newer PyTorch adds them
  std::vector<int32_t> devices;
  int64_t segments = 0;
  int64_t large_segments = 0;
  int64_t small_segments = 0;
  int64_t expandable_segments = 0;
  int64_t total_bytes = 0;  // reserved: the segments' total_size
  int64_t allocated_bytes = 0;
  int64_t active_bytes = 0;
  int64_t requested_bytes = 0;
  int64_t largest_inactive_block = 0;
  std::array<CountAndBytes, kBlockStateCount> blocks{};     // by BlockState
  std::array<CountAndBytes, kMemoryActionCount> actions{};  // by MemoryAction
  int64_t trace_entries = 0;
  TimeNs first_time = kNoValue;
  TimeNs last_time = kNoValue;
  int64_t frames = 0;
  int64_t stacks = 0;
  int64_t annotations = 0;
  AllocatorSettings settings;
  DataProblems problems;
  // Set for a profiler memory timeline instead of a snapshot: then only path, file_bytes and
  // problems above are filled (tests/memory_timeline_check.py checks its numbers).
  std::optional<MemoryTimelineStats> timeline;
};

MemoryInfoSummary ComputeMemoryInfo(const MemorySnapshot& snapshot);
MemoryInfoSummary ComputeMemoryInfo(const MemoryTimeline& timeline);

}  // namespace gpuwhy
