// The body shared by the deterministic mutation fuzzer (snapshot_fuzz_test.cc, in ctest) and the
// libFuzzer target (fuzz/snapshot_fuzzer.cc, clang only): decode |data| as an allocator snapshot
// and check the contract: no crash, no exception, no undefined behaviour (under the sanitizers),
// an error names the input in one line, and a snapshot is well formed (every segment's blocks
// and every stack and frame index inside its table).
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ingest/memory/snapshot_importer.h"

namespace gpuwhy {

inline constexpr std::string_view kSnapshotFuzzName = "fuzz.pickle";

inline std::string CheckStack(const MemorySnapshot& s, StackId stack, std::string_view what) {
  if (stack == kNoStack || stack < s.stack_count()) return "";
  return fmt::format("{}: stack {} of {}", what, stack, s.stack_count());
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
  return "";
}

}  // namespace gpuwhy
