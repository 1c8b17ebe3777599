#include "pipeline/memory_info_summary.h"

#include <algorithm>

namespace gpuwhy {
namespace {

int64_t Known(int64_t value) { return value == kNoValue ? 0 : value; }

// The layout names the PyTorch generation: per-block history was 2.0's, per-block frames with
// device_traces came with 2.1; allocator_settings and external_annotations are newer still.
std::string VersionHint(const SnapshotLayout& layout) {
  std::string base;
  if (layout.block_history && !layout.block_frames) {
    base = "PyTorch 2.0 layout (per-block history)";
  } else if (layout.device_traces || layout.block_frames) {
    base = "PyTorch 2.1+ layout (device_traces, per-block frames)";
  } else {
    base = "segments only (torch.cuda.memory_snapshot() or no history recorded)";
  }
  return base;
}

std::string OptionalFields(const SnapshotLayout& layout) {
  std::string fields;
  for (const auto& [present, name] :
       {std::pair{layout.requested_size, "requested_size"},
        std::pair{layout.segment_pool_id, "segment_pool_id"},
        std::pair{layout.allocator_settings, "allocator_settings"},
        std::pair{layout.external_annotations, "external_annotations"}}) {
    if (present) fields += (fields.empty() ? "" : ", ") + std::string(name);
  }
  return fields;
}

}  // namespace

MemoryInfoSummary ComputeMemoryInfo(const MemorySnapshot& s) {
  MemoryInfoSummary out;
  out.path = s.path;
  out.file_bytes = s.file_bytes;
  out.layout = s.layout;
  out.version_hint = VersionHint(s.layout);
  out.optional_fields = OptionalFields(s.layout);
  out.devices = s.Devices();
  out.segments = static_cast<int64_t>(s.segments.size());
  for (const MemorySegment& seg : s.segments) {
    out.large_segments += seg.pool == SegmentPool::kLarge;
    out.small_segments += seg.pool == SegmentPool::kSmall;
    out.expandable_segments += seg.expandable;
    out.total_bytes += seg.total_size;
    out.allocated_bytes += Known(seg.allocated_size);
    out.active_bytes += Known(seg.active_size);
    out.requested_bytes += Known(seg.requested_size);
  }
  for (const MemoryBlock& b : s.blocks) {
    CountAndBytes& c = out.blocks[static_cast<size_t>(b.state)];
    c.count++;
    c.bytes += b.size;
    if (b.state == BlockState::kInactive)
      out.largest_inactive_block = std::max(out.largest_inactive_block, b.size);
  }
  out.trace_entries = static_cast<int64_t>(s.trace.size());
  for (const MemoryTraceEntry& e : s.trace) {
    CountAndBytes& c = out.actions[static_cast<size_t>(e.action)];
    c.count++;
    c.bytes += e.size;
    if (e.time == kNoValue) continue;
    out.first_time = out.first_time == kNoValue ? e.time : std::min(out.first_time, e.time);
    out.last_time = std::max(out.last_time, e.time);
  }
  out.frames = static_cast<int64_t>(s.frames.size());
  out.stacks = static_cast<int64_t>(s.stack_count());
  out.annotations = s.annotation_count;
  out.settings = s.settings;
  out.problems = s.problems;
  return out;
}

MemoryInfoSummary ComputeMemoryInfo(const MemoryTimeline& timeline) {
  MemoryInfoSummary out;
  out.path = timeline.path;
  out.file_bytes = timeline.file_bytes;
  out.problems = timeline.problems;
  out.timeline = AnalyzeMemoryTimeline(timeline);
  return out;
}

}  // namespace gpuwhy
