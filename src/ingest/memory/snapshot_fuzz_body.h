// The body shared by the deterministic mutation fuzzer (snapshot_fuzz_test.cc, in ctest) and the
// libFuzzer target (fuzz/snapshot_fuzzer.cc, clang only): decode |data| as an allocator snapshot
// and check the contract: no crash, no exception, no undefined behaviour (under the sanitizers),
// an error names the input in one line, a snapshot is well formed (every segment's blocks and
// every stack and frame index inside its table), and when the one-pass reader takes the input,
// its snapshot equals the document path's.
#pragma once

#include <bit>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "ingest/memory/snapshot_importer.h"
#include "ingest/memory/snapshot_stream_reader.h"

namespace gpuwhy {

inline constexpr std::string_view kSnapshotFuzzName = "fuzz.pickle";

inline std::string CheckStack(const MemorySnapshot& s, StackId stack, std::string_view what) {
  if (stack == kNoStack || stack < s.stack_count()) return "";
  return fmt::format("{}: stack {} of {}", what, stack, s.stack_count());
}

// The first difference between two snapshots of the same bytes; "" when none.
inline std::string DiffSnapshots(const MemorySnapshot& a, const MemorySnapshot& b) {
  auto seg = [](const MemorySegment& s) {
    return std::tie(s.device, s.address, s.total_size, s.allocated_size, s.active_size,
                    s.requested_size, s.stream, s.pool, s.expandable, s.first_block, s.block_count,
                    s.stack);
  };
  auto block = [](const MemoryBlock& x) {
    return std::tie(x.address, x.size, x.requested_size, x.state, x.stack);
  };
  auto entry = [](const MemoryTraceEntry& e) {
    return std::tie(e.time, e.device, e.action, e.address, e.size, e.stream, e.device_free,
                    e.stack);
  };
  auto layout = [](const SnapshotLayout& l) {
    return std::tie(l.device_traces, l.block_frames, l.block_history, l.requested_size,
                    l.segment_pool_id, l.allocator_settings, l.external_annotations,
                    l.pickle_protocol);
  };
  auto settings = [](const AllocatorSettings& s) {
    return std::tie(s.recorded, s.alloc_conf, s.max_split_size, s.expandable_segments);
  };
  if (a.segments.size() != b.segments.size()) return "segment count";
  for (size_t i = 0; i < a.segments.size(); ++i) {
    if (seg(a.segments[i]) != seg(b.segments[i])) return fmt::format("segment {}", i);
  }
  if (a.blocks.size() != b.blocks.size()) return "block count";
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    if (block(a.blocks[i]) != block(b.blocks[i])) return fmt::format("block {}", i);
  }
  if (a.trace.size() != b.trace.size()) return "trace entry count";
  for (size_t i = 0; i < a.trace.size(); ++i) {
    if (entry(a.trace[i]) != entry(b.trace[i])) return fmt::format("trace entry {}", i);
  }
  if (a.frames.size() != b.frames.size()) return "frame count";
  for (size_t i = 0; i < a.frames.size(); ++i) {
    const MemoryFrame& x = a.frames[i];
    const MemoryFrame& y = b.frames[i];
    if (a.Str(x.name) != b.Str(y.name) || a.Str(x.filename) != b.Str(y.filename) ||
        x.line != y.line)
      return fmt::format("frame {}", i);
  }
  if (a.stack_frames != b.stack_frames || a.stack_offsets != b.stack_offsets) return "stacks";
  if (layout(a.layout) != layout(b.layout)) return "layout";
  if (settings(a.settings) != settings(b.settings)) return "settings";
  // NaN thresholds compare by their bits.
  const auto gc = [](const AllocatorSettings& s) {
    return s.garbage_collection_threshold
               ? std::optional<uint64_t>(std::bit_cast<uint64_t>(*s.garbage_collection_threshold))
               : std::nullopt;
  };
  if (gc(a.settings) != gc(b.settings)) return "garbage_collection_threshold";
  if (a.annotation_count != b.annotation_count) return "annotation count";
  if (a.problems.Describe() != b.problems.Describe())
    return "problems: " + a.problems.Describe() + " vs " + b.problems.Describe();
  return "";
}

// What broke the contract; "" when it holds.
inline std::string FuzzSnapshotImporter(std::string_view data) {
  StatusOr<MemorySnapshot> s = ParseMemorySnapshot(data, kSnapshotFuzzName);
  if (!s.ok()) {
    const std::string& message = s.status().message();
    if (!message.starts_with(kSnapshotFuzzName)) return "error without the name: " + message;
    if (message.find('\n') != std::string::npos) return "error of several lines: " + message;
    return "";
  }
  for (const MemorySegment& seg : s->segments) {
    if (uint64_t{seg.first_block} + seg.block_count > s->blocks.size()) return "segment blocks";
    if (std::string bad = CheckStack(*s, seg.stack, "segment"); !bad.empty()) return bad;
  }
  for (const MemoryBlock& b : s->blocks) {
    if (std::string bad = CheckStack(*s, b.stack, "block"); !bad.empty()) return bad;
  }
  for (const MemoryTraceEntry& e : s->trace) {
    if (std::string bad = CheckStack(*s, e.stack, "trace entry"); !bad.empty()) return bad;
  }
  for (size_t i = 1; i < s->stack_offsets.size(); ++i) {
    if (s->stack_offsets[i] < s->stack_offsets[i - 1]) return "stack offsets decrease";
  }
  if (!s->stack_offsets.empty() && s->stack_offsets.back() != s->stack_frames.size())
    return "stack offsets end elsewhere";
  for (uint32_t frame : s->stack_frames) {
    if (frame >= s->frames.size()) return fmt::format("frame {} of {}", frame, s->frames.size());
  }
  if (StreamReadResult fast = ReadSnapshotStreaming(data); fast.snapshot) {
    StatusOr<MemorySnapshot> doc = ParseMemorySnapshotViaDocument(data, kSnapshotFuzzName);
    if (!doc.ok()) return "the one-pass reader took what the document path refuses";
    if (std::string diff = DiffSnapshots(*fast.snapshot, *doc); !diff.empty())
      return "the one-pass reader and the document path differ: " + diff;
  }
  return "";
}

}  // namespace gpuwhy
