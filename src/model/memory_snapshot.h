// The caching allocator's memory state, as PyTorch's torch.cuda.memory._dump_snapshot() records
// it: segments (cudaMalloc'd ranges) split into blocks, each device's trace of allocator actions
// with stack frames, and the allocator settings. Importers fill it (ingest/memory); analyses read
// it and never see the pickle. Sizes are bytes; kNoValue marks a field the file did not record.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/string_pool.h"
#include "base/time.h"
#include "model/data_problems.h"
#include "model/tables.h"

namespace gpuwhy {

enum class BlockState : uint8_t { kActiveAllocated, kActivePendingFree, kInactive, kUnknown };
inline constexpr size_t kBlockStateCount = 4;
// "active_allocated", "active_pending_free", "inactive", "unknown": PyTorch's own names.
std::string_view BlockStateName(BlockState state);
BlockState ParseBlockState(std::string_view name);

// X-macro: enum name, PyTorch's action name. Reports list actions in this order.
#define GPUWHY_MEMORY_ACTIONS(X)      \
  X(kAlloc, "alloc")                  \
  X(kFreeRequested, "free_requested") \
  X(kFreeCompleted, "free_completed") \
  X(kSegmentAlloc, "segment_alloc")   \
  X(kSegmentFree, "segment_free")     \
  X(kSegmentMap, "segment_map")       \
  X(kSegmentUnmap, "segment_unmap")   \
  X(kSnapshot, "snapshot")            \
  X(kOom, "oom")                      \
  X(kUnknown, "unknown")

enum class MemoryAction : uint8_t {
#define GPUWHY_MEMORY_ACTION_ENUM(name, id) name,
  GPUWHY_MEMORY_ACTIONS(GPUWHY_MEMORY_ACTION_ENUM)
#undef GPUWHY_MEMORY_ACTION_ENUM
};
inline constexpr size_t kMemoryActionCount = static_cast<size_t>(MemoryAction::kUnknown) + 1;
std::string_view MemoryActionName(MemoryAction action);
MemoryAction ParseMemoryAction(std::string_view name);  // kUnknown when not one of the above

enum class SegmentPool : uint8_t { kLarge, kSmall, kUnknown };
std::string_view SegmentPoolName(SegmentPool pool);  // "large", "small", "unknown"

// One stack frame of an allocation; a stack is a run of frame indices, innermost first.
struct MemoryFrame {
  StringId name;
  StringId filename;
  int64_t line = 0;
};
using StackId = uint32_t;
inline constexpr StackId kNoStack = UINT32_MAX;

struct MemoryBlock {
  int64_t address = kNoValue;
  int64_t size = 0;
  int64_t requested_size = kNoValue;
  BlockState state = BlockState::kUnknown;
  StackId stack = kNoStack;
};

struct MemorySegment {
  int32_t device = 0;
  int64_t address = kNoValue;
  int64_t total_size = 0;
  int64_t allocated_size = kNoValue;
  int64_t active_size = kNoValue;
  int64_t requested_size = kNoValue;
  int64_t stream = kNoValue;
  SegmentPool pool = SegmentPool::kUnknown;
  bool expandable = false;
  uint32_t first_block = 0;  // into MemorySnapshot::blocks
  uint32_t block_count = 0;
  StackId stack = kNoStack;
};

struct MemoryTraceEntry {
  TimeNs time = kNoValue;  // time_us as ns; kNoValue when the entry had none
  int32_t device = 0;
  MemoryAction action = MemoryAction::kUnknown;
  int64_t address = kNoValue;
  int64_t size = 0;
  int64_t stream = kNoValue;
  int64_t device_free = kNoValue;  // oom entries: bytes the driver reported free
  StackId stack = kNoStack;
};

// allocator_settings, when the snapshot holds them (newer PyTorch); every field optional.
struct AllocatorSettings {
  bool recorded = false;
  std::string alloc_conf;                 // PYTORCH_CUDA_ALLOC_CONF as the process saw it
  std::optional<int64_t> max_split_size;  // -1: unlimited
  std::optional<bool> expandable_segments;
  std::optional<double> garbage_collection_threshold;
};

// Which optional parts the file had: hints at the PyTorch version that wrote it.
struct SnapshotLayout {
  bool device_traces = false;
  bool block_frames = false;  // per-block frames (2.1+); older files kept a per-block history
  bool block_history = false;
  bool requested_size = false;
  bool segment_pool_id = false;
  bool allocator_settings = false;
  bool external_annotations = false;
  int pickle_protocol = 0;
};

// One device's torch.cuda.memory_stats() counters, as torch.cuda.memory_summary() prints them
// (rounded to its units) or a memory_stats() dict holds them. kNoValue: not printed.
struct StatValues {
  int64_t current = kNoValue;
  int64_t peak = kNoValue;
  int64_t allocated = kNoValue;  // total over the run ("Tot Alloc")
  int64_t freed = kNoValue;      // "Tot Freed"
};
enum class StatPool : uint8_t { kAll, kLarge, kSmall };
inline constexpr size_t kStatPoolCount = 3;
using PoolStats = std::array<StatValues, kStatPoolCount>;  // by StatPool

struct AllocatorStats {
  int32_t device = 0;
  // memory_stats() names no device: true when the log did not say which either (0 is assumed,
  // and the report says so).
  bool device_assumed = false;
  int64_t num_ooms = kNoValue;
  int64_t num_alloc_retries = kNoValue;  // cudaMalloc retries: the cache was freed to retry
  PoolStats allocated_bytes;
  PoolStats active_bytes;
  PoolStats requested_bytes;
  PoolStats reserved_bytes;
  PoolStats non_releasable_bytes;  // inactive_split_bytes: free but split, cannot be released
  PoolStats allocations;
  PoolStats active_allocations;
  PoolStats segments;
  PoolStats non_releasable_allocations;
  // memory_stats() only (a summary does not print them).
  int64_t num_sync_all_streams = kNoValue;
  int64_t num_device_alloc = kNoValue;  // cudaMalloc calls (cuMemMap with expandable segments)
  int64_t num_device_free = kNoValue;   // cudaFree calls: a warmed-up cache makes none per step
  // Bytes; -1: unlimited (PyTorch prints its SIZE_MAX default so); nullopt: not printed.
  std::optional<int64_t> max_split_size;
  StatValues oversize_allocations;  // requests above max_split_size
  StatValues oversize_segments;
};

// One CUDA out-of-memory message from a training log, as the caching allocator prints it:
//   2.1+: "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.23 GiB
//          is free. [Process 4242 has 9.00 GiB memory in use.] Including non-PyTorch memory,
//          this process has 77.91 GiB memory in use. Of the allocated memory 75.21 GiB is
//          allocated by PyTorch, and 1.95 GiB is reserved by PyTorch but unallocated."
//   older: "Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already
//          allocated; 3.75 MiB free; 14.74 GiB reserved in total by PyTorch)"
// Sizes keep the message's rounding (two decimals of their unit); kNoValue where not printed.
struct OomMessage {
  int32_t device = -1;  // -1: not printed
  int64_t requested = kNoValue;
  int64_t capacity = kNoValue;              // the device's total memory
  int64_t free = kNoValue;                  // free on the device at the failure
  int64_t process_in_use = kNoValue;        // this process, PyTorch and not
  int64_t allocated_by_pytorch = kNoValue;  // in live tensors
  int64_t reserved_unallocated = kNoValue;  // cached by the allocator, in no tensor
  int32_t other_processes = 0;              // "Process N has X memory in use" lines
  int64_t other_processes_bytes = 0;
  size_t line = 0;  // 1-based, where "out of memory" is
};

struct MemorySnapshot {
  std::string path;
  // "torch.cuda.memory._dump_snapshot", or "torch.cuda.memory_summary" / "torch.cuda.memory_stats"
  // (segments and trace empty, stats filled).
  std::string source = "torch.cuda.memory._dump_snapshot";
  std::vector<AllocatorStats> stats;     // one per summary read, in file order
  std::vector<OomMessage> oom_messages;  // CUDA OOM messages of a log, in file order
  uint64_t file_bytes = 0;
  SnapshotLayout layout;
  std::vector<MemorySegment> segments;
  std::vector<MemoryBlock> blocks;      // each segment's blocks in a row
  std::vector<MemoryTraceEntry> trace;  // device by device, each in recorded order
  std::vector<MemoryFrame> frames;
  std::vector<uint32_t> stack_frames;   // frame indices, stack after stack
  std::vector<uint32_t> stack_offsets;  // stack i is stack_frames[offsets[i], offsets[i+1])
  AllocatorSettings settings;
  int64_t annotation_count = 0;
  StringPool strings;
  DataProblems problems;

  std::string_view Str(StringId id) const { return id.valid() ? strings.Get(id) : ""; }
  size_t stack_count() const { return stack_offsets.empty() ? 0 : stack_offsets.size() - 1; }
  // The frames of |stack|, innermost first; empty for kNoStack.
  std::vector<const MemoryFrame*> Stack(StackId stack) const;
  // Devices named by segments or trace entries, ascending.
  std::vector<int32_t> Devices() const;
};

}  // namespace gpuwhy
