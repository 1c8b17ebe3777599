// The caching allocator's state from a memory snapshot (model/memory_snapshot.h): what is reserved
// against what is allocated, how the cached free bytes are split (the largest free block against
// the requests that failed), whether the trace's own peak explains the reservation, allocator
// churn (segment_alloc/segment_free while the job runs), OOMs, and the allocation sites that hold
// the bytes. Reads the model only; the findings are diagnose/snapshot_rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/memory_oom_replay.h"
#include "model/memory_snapshot.h"

namespace gpuwhy {

struct AllocationSite {
  std::string frame;       // "file.py:12:forward", the innermost frame outside torch and C++
  int64_t live_bytes = 0;  // in active_allocated blocks at the snapshot
  int64_t live_blocks = 0;
  int64_t allocated_bytes = 0;  // summed over the trace's alloc entries
  int64_t allocations = 0;
};

struct AllocatorState {
  int64_t reserved = 0;
  int64_t allocated = 0;
  int64_t requested = 0;
  int64_t cached_free = 0;            // reserved - allocated
  double cached_free_pct = 0;         // of reserved
  int64_t free_blocks = 0;            // inactive blocks
  int64_t largest_free_block = 0;     // kNoValue from counters (a summary or memory_stats())
  int64_t empty_segments = 0;         // nothing allocated: cache the allocator could release
  int64_t free_in_used_segments = 0;  // inactive bytes in segments that also hold live blocks
  int64_t segments = 0;
  std::optional<bool> expandable_segments;  // allocator_settings, when recorded
  int64_t capacity = kNoValue;              // a snapshot does not record it: unknown unless given
  // The trace (empty when _record_memory_history was off).
  bool has_trace = false;
  // segment_allocs/frees (and their bytes) come from counters instead: a summary's or
  // memory_stats()'s segments allocated and freed over the run (cudaMalloc/cudaFree calls).
  bool segments_from_counters = false;
  int64_t allocs = 0;
  int64_t frees = 0;
  int64_t segment_allocs = 0;
  int64_t segment_frees = 0;
  int64_t segment_alloc_bytes = 0;
  int64_t segment_free_bytes = 0;
  // Runs of segment_free entries with no allocation between them: empty_cache() releases the
  // whole cache in one run, so one run is a one-off (a harness calling it at start-up) and
  // churn is runs repeated across iterations.
  int64_t segment_free_bursts = 0;
  // The most bytes live when a run began: near the peak it is the allocator flushing its cache at
  // the device limit (a malloc retry), far below it a release while little was in use.
  int64_t segment_free_burst_live = kNoValue;
  int64_t ooms = 0;
  int64_t largest_oom_request = 0;
  // The allocator at the trace's first OOM entry, replayed from the snapshot's end state (the
  // state after the exception freed everything says nothing about the failure): live and
  // reserved bytes then, the cached free bytes between them, and the failed request.
  // kNoValue without an OOM entry.
  int64_t oom_live = kNoValue;
  int64_t oom_reserved = kNoValue;
  int64_t oom_cached_free = kNoValue;
  int64_t oom_request = kNoValue;
  // The same moment block by block (analyze/memory_oom_replay.h): the free blocks of the
  // request's pool and stream, the largest beside the request; unset without an OOM entry.
  std::optional<FreeBlocksAt> oom_blocks;
  int64_t oom_device_free = kNoValue;  // what the driver reported free, when the entry holds it
  int64_t alloc_retries = 0;           // memory_summary's "cudaMalloc retries"
  // A log's CUDA out-of-memory messages: how many, and the one that asked for the most (its
  // free, cached-but-unallocated and other processes' bytes say why it failed).
  int64_t oom_messages = 0;
  std::optional<OomMessage> largest_oom_message;
  // From memory_summary()/memory_stats() counters instead of segments: cached_free is then the
  // non-releasable (inactive split) bytes, the part of the cache that cannot be released.
  bool has_stats = false;
  int64_t peak_reserved = kNoValue;
  // Allocated bytes ("all" pool, current) print after print of the device printed most often: a
  // log that prints memory_summary()/memory_stats() every few steps shows a leak as a rise at
  // every print, healthy caching as a flat line (however much is reserved).
  std::vector<int64_t> allocated_by_print;
  // What those points are, for the leak's title (a memory timeline gives its windows' troughs).
  std::string_view print_series = "memory_summary()/memory_stats() prints";
  // Allocated bytes at the trace's peak, replayed from alloc/free_completed and anchored at the
  // snapshot's allocated total; kNoValue without a trace.
  int64_t peak_allocated = kNoValue;
  // The peak needed the reservation: peak_allocated >= 85% of reserved (a cached peak, not a leak
  // or fragmentation).
  bool reserved_explained_by_peak = false;
  std::vector<AllocationSite> top_sites;  // by live bytes, then allocated bytes; at most 10
};

AllocatorState AnalyzeAllocatorState(const MemorySnapshot& snapshot);

// The frame that names where an allocation came from: the innermost Python frame outside torch,
// else the innermost frame with a file name; "" when the stack is empty.
std::string AllocationSiteOf(const MemorySnapshot& snapshot, StackId stack);

}  // namespace gpuwhy
