// The columnar tables of a Trace. Each table is a struct of vectors with a Row struct used
// to append and to read one row back (tests, rendering); analyses read the columns.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/string_pool.h"
#include "base/strong_id.h"
#include "base/time.h"
#include "model/compact_column.h"
#include "model/gpu_op_details.h"
#include "model/gpu_op_types.h"

namespace gpuwhy {

struct ThreadTag {};
struct GpuOpTag {};
struct CpuSliceTag {};
using ThreadId = StrongId<ThreadTag>;
using GpuOpId = StrongId<GpuOpTag>;
using CpuSliceId = StrongId<CpuSliceTag>;

enum class CpuSliceKind : uint8_t {
  kOp,              // cpu_op / Operator: an ATen or user op
  kRuntime,         // cuda_runtime / hip runtime / mtia_runtime call
  kDriver,          // cuda_driver (cuLaunchKernel for Triton and graphs)
  kPython,          // python_function frames (with_stack)
  kUserAnnotation,  // record_function ranges, ProfilerStep#N
  kOther,           // profiler spans and anything else with a duration on a host thread
};

struct ThreadTable {
  struct Row {
    int64_t pid = 0;
    int64_t tid = 0;
    StringId name;
  };
  std::vector<int64_t> pid;
  std::vector<int64_t> tid;
  std::vector<StringId> name;
  size_t size() const { return pid.size(); }
  ThreadId Append(const Row& row);
};

struct GpuOpTable {
  struct Row {
    GpuOpKind kind = GpuOpKind::kKernel;
    int32_t device = 0;
    int64_t stream = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name;
    int64_t correlation = kNoValue;
    int64_t external_id = kNoValue;
    int64_t bytes = kNoValue;
    CopyDirection copy_direction = CopyDirection::kUnknown;
    MemoryKind src_kind = MemoryKind::kUnknown;
    MemoryKind dst_kind = MemoryKind::kUnknown;
    LaunchConfig launch;
  };
  std::vector<GpuOpKind> kind;
  CompactColumn<int32_t> device;  // one value per process, in most traces
  IntColumn stream;
  std::vector<TimeNs> start;
  std::vector<TimeNs> end;
  std::vector<StringId> name;
  IntColumn correlation;
  IntColumn external_id;  // absent from Nsight exports
  // Launch configuration and copy size/kinds: an index into |detail_pool| per op (they repeat).
  std::vector<uint32_t> detail;
  GpuOpDetailPool detail_pool;
  size_t size() const { return start.size(); }
  const LaunchConfig& launch(size_t i) const { return detail_pool[detail[i]].launch; }
  int64_t bytes(size_t i) const { return detail_pool[detail[i]].bytes; }
  CopyDirection copy_direction(size_t i) const { return detail_pool[detail[i]].copy_direction; }
  MemoryKind src_kind(size_t i) const { return detail_pool[detail[i]].src_kind; }
  MemoryKind dst_kind(size_t i) const { return detail_pool[detail[i]].dst_kind; }
  // Bytes the rows take in the columns and the detail pool (benchmarks: bytes per row).
  size_t ColumnBytes() const;
  // Capacity hint: importers reserve from the file size so columns grow without copies.
  void Reserve(size_t rows);
  GpuOpId Append(const Row& row);
  Row Get(size_t i) const;
};

// Collective metadata (NCCL/RCCL/gloo) recorded on a GPU kernel or on the CPU op that issued it.
struct CollectiveTable {
  struct Row {
    GpuOpId gpu_op;
    CpuSliceId cpu_slice;
    StringId collective_name;  // "allreduce", "all_to_allv", ...
    int64_t in_nelems = kNoValue;
    int64_t out_nelems = kNoValue;
    int64_t group_size = kNoValue;
    StringId dtype;
    StringId process_group_name;
    StringId process_group_desc;
    StringId in_split_sizes;
    StringId out_split_sizes;
    int64_t sequence = kNoValue;
  };
  std::vector<Row> rows;  // few rows per step: a row vector is the simplest columnar here
  size_t size() const { return rows.size(); }
};

// cuda_sync records: the GPU waiting on an event or stream. Waits, never busy time.
struct GpuSyncTable {
  struct Row {
    int32_t device = 0;
    int64_t stream = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name;  // "Stream Sync", "Event Sync", "Context Sync", "Stream Wait Event"
    int64_t correlation = kNoValue;
    int64_t wait_on_stream = kNoValue;
    int64_t wait_on_event_correlation = kNoValue;
  };
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
};

// gpu_user_annotation: record_function ranges projected onto a device stream.
struct GpuAnnotationTable {
  struct Row {
    int32_t device = 0;
    int64_t stream = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name;
    int64_t external_id = kNoValue;
  };
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
};

struct CpuSliceTable {
  struct Row {
    ThreadId thread;
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name;
    CpuSliceKind kind = CpuSliceKind::kOp;
    int64_t correlation = kNoValue;
    int64_t external_id = kNoValue;
    StringId input_dims;       // raw JSON of "Input Dims" when record_shapes was on
    StringId input_types;      // raw JSON of "Input type"
    StringId concrete_inputs;  // raw JSON of "Concrete Inputs" (scalar args, PyTorch 2.x)
    int64_t flops = kNoValue;  // "flops" of profile(with_flops=True)
  };
  std::vector<ThreadId> thread;
  std::vector<TimeNs> start;
  std::vector<TimeNs> end;
  std::vector<StringId> name;
  std::vector<CpuSliceKind> kind;
  IntColumn correlation;
  IntColumn external_id;
  // Uniform (stored once) in traces without record_shapes / with_flops, and in Nsight exports.
  CompactColumn<StringId> input_dims;
  CompactColumn<StringId> input_types;
  CompactColumn<StringId> concrete_inputs;
  IntColumn flops;
  // Filled by Trace::Finalize(): nesting per thread.
  std::vector<uint16_t> depth;
  std::vector<CpuSliceId> parent;
  size_t size() const { return start.size(); }
  size_t ColumnBytes() const;
  void Reserve(size_t rows);
  CpuSliceId Append(const Row& row);
  Row Get(size_t i) const;
};

struct StepTable {
  struct Row {
    int64_t number = 0;
    StringId name;
    TimeNs host_start = 0;
    TimeNs host_end = 0;
    // Device-side extent: first start / last end of GPU ops launched during the step.
    // Equal to the host extent when the step launched nothing.
    TimeNs device_start = 0;
    TimeNs device_end = 0;
    int64_t gpu_op_count = 0;
  };
  std::vector<Row> rows;
  bool synthesized = false;  // no ProfilerStep in the trace: one step spans everything
  // No ProfilerStep, but the capture repeats the optimizer's step: each row is one iteration,
  // from one outermost Optimizer.step#... end to the next (the first from the trace start).
  bool from_optimizer = false;
  size_t size() const { return rows.size(); }
};

// PyTorch allocator events ("[memory]" instants with profile_memory=True).
struct MemoryEventTable {
  struct Row {
    TimeNs ts = 0;
    int32_t device_type = -1;  // 0 CPU, 1 CUDA (c10::DeviceType)
    int32_t device_id = -1;
    uint64_t addr = 0;
    int64_t bytes = 0;  // positive: allocation, negative: free
    int64_t total_allocated = kNoValue;
    int64_t total_reserved = kNoValue;
    ThreadId thread;
  };
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
};

struct CounterTable {
  struct Row {
    StringId name;
    int64_t pid = 0;
    TimeNs ts = 0;
    double value = 0;
  };
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
};

struct DeviceTable {
  struct Row {
    int32_t id = 0;
    StringId name;
    int64_t total_memory_bytes = kNoValue;
    int32_t sm_count = -1;
    int32_t compute_major = -1;
    int32_t compute_minor = -1;
    int32_t max_threads_per_sm = -1;
    int32_t registers_per_sm = -1;
    int64_t shared_memory_per_sm = kNoValue;
    int32_t warp_size = -1;
  };
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
  // Returns the row of device |id|, or nullptr.
  const Row* Find(int32_t id) const;
};

}  // namespace gpuwhy
