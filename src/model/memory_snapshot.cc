#include "model/memory_snapshot.h"

#include <algorithm>

namespace gpuwhy {
namespace {

constexpr std::string_view kActionNames[] = {
#define GPUWHY_MEMORY_ACTION_NAME(name, id) id,
    GPUWHY_MEMORY_ACTIONS(GPUWHY_MEMORY_ACTION_NAME)
#undef GPUWHY_MEMORY_ACTION_NAME
};

}  // namespace

std::string_view BlockStateName(BlockState state) {
  switch (state) {
    case BlockState::kActiveAllocated: return "active_allocated";
    case BlockState::kActivePendingFree: return "active_pending_free";
    case BlockState::kInactive: return "inactive";
    case BlockState::kUnknown: break;
  }
  return "unknown";
}

BlockState ParseBlockState(std::string_view name) {
  if (name == "active_allocated") return BlockState::kActiveAllocated;
  if (name == "active_pending_free") return BlockState::kActivePendingFree;
  if (name == "inactive") return BlockState::kInactive;
  return BlockState::kUnknown;
}

std::string_view MemoryActionName(MemoryAction action) {
  return kActionNames[static_cast<size_t>(action)];
}

MemoryAction ParseMemoryAction(std::string_view name) {
  for (size_t i = 0; i + 1 < kMemoryActionCount; ++i) {
    if (kActionNames[i] == name) return static_cast<MemoryAction>(i);
  }
  return MemoryAction::kUnknown;
}

std::string_view SegmentPoolName(SegmentPool pool) {
  switch (pool) {
    case SegmentPool::kLarge: return "large";
    case SegmentPool::kSmall: return "small";
    case SegmentPool::kUnknown: break;
  }
  return "unknown";
}

std::vector<const MemoryFrame*> MemorySnapshot::Stack(StackId stack) const {
  std::vector<const MemoryFrame*> out;
  if (stack == kNoStack || stack + 1 >= stack_offsets.size()) return out;
  for (uint32_t i = stack_offsets[stack]; i < stack_offsets[stack + 1]; ++i) {
    out.push_back(&frames[stack_frames[i]]);
  }
  return out;
}

std::vector<int32_t> MemorySnapshot::Devices() const {
  std::vector<int32_t> out;
  for (const MemorySegment& s : segments) out.push_back(s.device);
  for (const MemoryTraceEntry& e : trace) out.push_back(e.device);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gpuwhy
