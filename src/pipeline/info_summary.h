// What `gpuwhy info` knows about one imported trace, computed once from the model so the
// text and JSON renderings read the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/roofline.h"
#include "base/time.h"
#include "model/kernel_profile.h"
#include "model/trace.h"

namespace gpuwhy {

struct DeviceSummary {
  int32_t id = 0;
  std::string name;       // empty when the trace has no deviceProperties entry
  int32_t sm_count = -1;  // -1: unknown
  int64_t memory_bytes = kNoValue;
  int32_t compute_major = -1;
  int32_t compute_minor = -1;
  bool active = false;  // ran at least one GPU op
};

// One named event count; the list order is the display order.
struct EventCount {
  std::string id;     // stable, for JSON: "kernels", "runtime_calls", ...
  std::string label;  // for people: "kernels", "runtime calls", ...
  int64_t value = 0;
};

struct MemcpyCount {
  CopyDirection direction = CopyDirection::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  int64_t count = 0;
  int64_t bytes = 0;  // sum over copies that recorded their size
};

struct InfoSummary {
  TraceMetadata metadata;
  int64_t rank = kNoValue;
  int64_t world_size = kNoValue;
  RankSource rank_source = RankSource::kUnknown;
  std::string distributed_backend;
  std::vector<DeviceSummary> devices;  // by id
  DurationNs span_ns = 0;
  int64_t step_count = 0;
  bool steps_synthesized = false;
  int64_t first_step = kNoValue;
  int64_t last_step = kNoValue;
  DurationNs mean_step_ns = 0;
  std::vector<EventCount> counts;
  std::vector<MemcpyCount> memcpy;  // sorted by direction, then memory kinds
  DataProblems problems;            // the trace's own
};

// `gpuwhy info` of an Nsight Compute export: each kernel with its roofline class.
struct ProfiledKernelInfo {
  int64_t id = -1;
  std::string name;
  int64_t grid_blocks = -1;
  int64_t block_threads = -1;
  size_t metrics = 0;
  KernelRoofline roofline;
};

struct KernelProfileSummary {
  std::string path;
  NcuLayout layout = NcuLayout::kDetails;
  int64_t metric_count = 0;
  std::vector<ProfiledKernelInfo> kernels;
  DataProblems problems;
};

KernelProfileSummary ComputeKernelProfileSummary(const KernelProfile& profile);

// Reads a finalized trace.
InfoSummary ComputeInfoSummary(const Trace& trace);

// The count with |id|, or -1 when absent.
int64_t FindCount(const InfoSummary& summary, std::string_view id);

std::string_view RankSourceName(RankSource source);
// Stable lower-case id for machine output: "modern", "legacy", "unknown".
std::string_view SchemaGenerationId(SchemaGeneration schema);

}  // namespace gpuwhy
