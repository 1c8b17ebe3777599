#include "pipeline/info_summary.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace gpuwhy {
namespace {

void SummarizeDevices(const Trace& trace, InfoSummary& summary) {
  std::map<int32_t, DeviceSummary> by_id;
  for (const DeviceTable::Row& row : trace.devices.rows) {
    DeviceSummary& device = by_id[row.id];
    device.id = row.id;
    device.name = std::string(trace.Str(row.name));
    device.sm_count = row.sm_count;
    device.memory_bytes = row.total_memory_bytes;
    device.compute_major = row.compute_major;
    device.compute_minor = row.compute_minor;
  }
  // A device that ran work but has no properties entry is still worth listing.
  for (int32_t id : trace.active_devices()) {
    by_id[id].id = id;
    by_id[id].active = true;
  }
  for (auto& [id, device] : by_id) summary.devices.push_back(std::move(device));
}

void SummarizeSteps(const Trace& trace, InfoSummary& summary) {
  const auto& rows = trace.steps.rows;
  summary.step_count = static_cast<int64_t>(rows.size());
  summary.steps_synthesized = trace.steps.synthesized;
  if (rows.empty()) return;
  DurationNs total = 0;
  int64_t first = rows.front().number;
  int64_t last = rows.front().number;
  for (const StepTable::Row& row : rows) {
    total += row.host_end - row.host_start;
    first = std::min(first, row.number);
    last = std::max(last, row.number);
  }
  summary.mean_step_ns = total / static_cast<DurationNs>(rows.size());
  if (!summary.steps_synthesized) {
    summary.first_step = first;
    summary.last_step = last;
  }
}

void SummarizeGpuOps(const Trace& trace, InfoSummary& summary, std::array<int64_t, 3>& counts) {
  using Key = std::tuple<CopyDirection, MemoryKind, MemoryKind>;
  std::map<Key, MemcpyCount> copies;
  const GpuOpTable& ops = trace.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    ++counts[static_cast<size_t>(ops.kind[i])];
    if (ops.kind[i] != GpuOpKind::kMemcpy) continue;
    MemcpyCount& copy = copies[{ops.copy_direction(i), ops.src_kind(i), ops.dst_kind(i)}];
    copy.direction = ops.copy_direction(i);
    copy.src_kind = ops.src_kind(i);
    copy.dst_kind = ops.dst_kind(i);
    ++copy.count;
    if (ops.bytes(i) > 0) copy.bytes += ops.bytes(i);
  }
  for (auto& [key, copy] : copies) summary.memcpy.push_back(copy);
}

void SummarizeCounts(const Trace& trace, InfoSummary& summary) {
  std::array<int64_t, 3> gpu{};  // indexed by GpuOpKind
  SummarizeGpuOps(trace, summary, gpu);
  std::array<int64_t, static_cast<size_t>(CpuSliceKind::kOther) + 1> cpu{};
  for (CpuSliceKind kind : trace.cpu_slices.kind) ++cpu[static_cast<size_t>(kind)];
  const auto cpu_count = [&](CpuSliceKind kind) { return cpu[static_cast<size_t>(kind)]; };
  const auto size = [](size_t n) { return static_cast<int64_t>(n); };
  summary.counts = {
      {"kernels", "kernels", gpu[static_cast<size_t>(GpuOpKind::kKernel)]},
      {"memcpy", "memcpy", gpu[static_cast<size_t>(GpuOpKind::kMemcpy)]},
      {"memset", "memset", gpu[static_cast<size_t>(GpuOpKind::kMemset)]},
      {"runtime_calls", "runtime calls", cpu_count(CpuSliceKind::kRuntime)},
      {"driver_calls", "driver calls", cpu_count(CpuSliceKind::kDriver)},
      {"cpu_ops", "CPU ops", cpu_count(CpuSliceKind::kOp)},
      {"python_frames", "python frames", cpu_count(CpuSliceKind::kPython)},
      {"user_annotations", "user annotations", cpu_count(CpuSliceKind::kUserAnnotation)},
      {"other_cpu_slices", "other CPU slices", cpu_count(CpuSliceKind::kOther)},
      {"gpu_annotations", "GPU annotations", size(trace.gpu_annotations.size())},
      {"cuda_syncs", "CUDA syncs", size(trace.gpu_syncs.size())},
      {"memory_events", "memory events", size(trace.memory_events.size())},
      {"counters", "counter samples", size(trace.counters.size())},
      {"collectives", "collectives", size(trace.collectives.size())},
      {"threads", "threads", size(trace.threads.size())},
  };
}

}  // namespace

InfoSummary ComputeInfoSummary(const Trace& trace) {
  InfoSummary summary;
  summary.metadata = trace.metadata;
  summary.rank = trace.rank.rank;
  summary.world_size = trace.rank.world_size;
  summary.rank_source = trace.rank.source;
  summary.distributed_backend = trace.rank.backend;
  SummarizeDevices(trace, summary);
  summary.span_ns = std::max<DurationNs>(0, trace.span().length());
  SummarizeSteps(trace, summary);
  SummarizeCounts(trace, summary);
  summary.problems = trace.problems;
  return summary;
}

int64_t FindCount(const InfoSummary& summary, std::string_view id) {
  for (const EventCount& count : summary.counts) {
    if (count.id == id) return count.value;
  }
  return -1;
}

std::string_view RankSourceName(RankSource source) {
  switch (source) {
    case RankSource::kUnknown: return "unknown";
    case RankSource::kDistributedInfo: return "distributedInfo";
    case RankSource::kFileName: return "file name";
  }
  return "unknown";
}

std::string_view SchemaGenerationId(SchemaGeneration schema) {
  switch (schema) {
    case SchemaGeneration::kUnknown: return "unknown";
    case SchemaGeneration::kModern: return "modern";
    case SchemaGeneration::kLegacy: return "legacy";
    case SchemaGeneration::kLegacyProfiler: return "legacy_profiler";
  }
  return "unknown";
}

KernelProfileSummary ComputeKernelProfileSummary(const KernelProfile& profile) {
  KernelProfileSummary out{
      profile.path, profile.layout, profile.metric_count, {}, profile.problems};
  for (const ProfiledKernel& k : profile.kernels) {
    // Nsight Compute's rule results ("rule: …") sit beside the measurements; not counted.
    size_t measured = static_cast<size_t>(
        std::count_if(k.metrics.begin(), k.metrics.end(),
                      [](const KernelMetric& m) { return !m.name.starts_with("rule: "); }));
    out.kernels.push_back(
        {k.id, k.name, k.grid_blocks, k.block_threads, measured, ClassifyProfiledKernel(k)});
  }
  return out;
}

}  // namespace gpuwhy
