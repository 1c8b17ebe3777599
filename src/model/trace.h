// One rank's (one process's) trace: tables, string pool, metadata and data problems.
// Importers fill it and call Finalize(); analyses only ever see `const Trace&`.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/interval_set.h"
#include "base/string_pool.h"
#include "model/data_problems.h"
#include "model/launch_index.h"
#include "model/tables.h"

namespace gpuwhy {

enum class SchemaGeneration {
  kUnknown,
  kModern,          // PyTorch 2.x: lower-case categories, baseTimeNanoseconds, fractional µs
  kLegacy,          // 2021-era: Kernel/Runtime/Operator, "external id", "stream 7" tids
  kLegacyProfiler,  // PyTorch without Kineto: bare array, no cat, pid "CPU functions"
};
enum class GpuVendor { kUnknown, kNvidia, kAmd, kMtia, kNone };
enum class RankSource { kUnknown, kDistributedInfo, kFileName };

struct ProcessGroup {
  std::string name;
  std::string description;
  std::string backend_config;
  int64_t size = kNoValue;
  std::vector<int64_t> ranks;
};

struct RankInfo {
  int64_t rank = kNoValue;
  int64_t world_size = kNoValue;
  RankSource source = RankSource::kUnknown;
  std::string backend;
  std::string nccl_version;
  std::vector<ProcessGroup> process_groups;
};

struct TraceMetadata {
  std::string path;
  std::string format;  // "kineto"
  SchemaGeneration schema = SchemaGeneration::kUnknown;
  int64_t schema_version = kNoValue;
  uint64_t file_size_bytes = 0;
  uint64_t content_bytes = 0;  // decompressed bytes read
  bool compressed = false;
  std::optional<int64_t> base_time_ns;  // add to ts to get epoch ns (modern traces)
  std::string trace_name;
  GpuVendor vendor = GpuVendor::kUnknown;
  // Other top-level scalars (cuda_driver_version, hip_runtime_version, ...), as text.
  std::map<std::string, std::string> extra;
  // Raw event counts by "ph/cat" as seen in the file, before any modelling.
  std::map<std::string, int64_t> raw_event_counts;
};

struct CorrelatedGpuOp {
  int64_t correlation;
  GpuOpId op;
};

class Trace {
 public:
  Trace() = default;
  Trace(Trace&&) = default;
  Trace& operator=(Trace&&) = default;

  StringPool strings;
  TraceMetadata metadata;
  RankInfo rank;
  DeviceTable devices;
  ThreadTable threads;
  GpuOpTable gpu_ops;
  CollectiveTable collectives;
  GpuSyncTable gpu_syncs;
  GpuAnnotationTable gpu_annotations;
  CpuSliceTable cpu_slices;
  StepTable steps;
  MemoryEventTable memory_events;
  CounterTable counters;
  DataProblems problems;

  ThreadId GetOrCreateThread(int64_t pid, int64_t tid);
  std::string_view Str(StringId id) const { return strings.Get(id); }

  // Joins |other|, the host side of the same process read on another thread: its threads,
  // CPU slices (names re-interned into this trace's strings) and import counters move here.
  // Moved outright when this trace has no host side yet, else appended. Before Finalize().
  void AbsorbCpuSide(Trace&& other);

  // Sorts every table, computes nesting, correlation indexes, step extents and the
  // span, and counts data-quality stats. Call once after the last row is appended.
  void Finalize();
  bool finalized() const { return finalized_; }

  // --- Indexes, valid after Finalize() ---
  // The runtime/driver call with this correlation id, or an invalid id.
  CpuSliceId FindLaunch(int64_t correlation) const;
  // All GPU ops with this correlation id (one launch may run many ops, e.g. graphs).
  std::span<const CorrelatedGpuOp> FindGpuOps(int64_t correlation) const;
  // Rows of cpu_slices on |thread|, ordered by (start, longest first).
  std::pair<size_t, size_t> ThreadRows(ThreadId thread) const { return thread_rows_[thread.value]; }
  // First start to last end over host slices and GPU ops (ignoring clock anomalies).
  Interval span() const { return span_; }
  // Devices that ran at least one GPU op, ascending.
  const std::vector<int32_t>& active_devices() const { return active_devices_; }

 private:
  void SortGpuOps();
  // CPU slices by thread, then start, longest first (empty: already in order); moved into
  // that order; then nested (parent, depth, rows per thread).
  std::vector<uint32_t> CpuSliceOrder() const;
  void PermuteCpuSlices(const std::vector<uint32_t>& order, bool parallel);
  void NestCpuSlices();
  // Drops duplicate launches and counts GPU ops without one (indexes built by Finalize).
  void CheckCorrelations();
  void BuildSteps();
  // Without ProfilerStep: one step per iteration between optimizer steps, when there are two.
  void AddOptimizerIterations();
  void CountStreamOverlaps();
  void ComputeSpan();

  bool finalized_ = false;
  std::map<std::pair<int64_t, int64_t>, ThreadId> thread_index_;
  std::vector<std::pair<size_t, size_t>> thread_rows_;
  std::vector<CorrelatedGpuOp> ops_by_correlation_;
  LaunchIndex launches_;  // runtime/driver calls of cpu_slices by correlation id
  Interval span_;
  std::vector<int32_t> active_devices_;
};

std::string_view GpuOpKindName(GpuOpKind kind);
std::string_view CopyDirectionName(CopyDirection direction);
std::string_view MemoryKindName(MemoryKind kind);
std::string_view CpuSliceKindName(CpuSliceKind kind);
std::string_view SchemaGenerationName(SchemaGeneration schema);
std::string_view GpuVendorName(GpuVendor vendor);

}  // namespace gpuwhy
