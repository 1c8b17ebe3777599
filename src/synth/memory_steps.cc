#include "synth/memory_steps.h"

namespace gpuwhy {
namespace {

constexpr int64_t kActivationMiB = 1024;

TimeNs StepStart(int step) { return 1000 * (step + 1); }

}  // namespace

MemoryTimeline SyntheticStepTimeline(int steps, int64_t base_mib, int64_t leak_mib) {
  MemoryTimeline t;
  t.path = "synthetic";
  const auto row = [&](TimeNs time, TimelineAction action, int64_t mib, MemoryCategory cat) {
    t.time.push_back(time);
    t.action.push_back(action);
    t.bytes.push_back(mib << 20);
    t.category.push_back(cat);
  };
  row(kNoValue, TimelineAction::kPreexisting, base_mib, MemoryCategory::kParameter);
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = StepStart(i);
    row(start, TimelineAction::kCreate, kActivationMiB, MemoryCategory::kActivation);
    row(start + 500, TimelineAction::kDestroy, -kActivationMiB, MemoryCategory::kActivation);
    if (leak_mib > 0) row(start + 600, TimelineAction::kCreate, leak_mib, MemoryCategory::kUnknown);
  }
  return t;
}

MemorySnapshot SyntheticStepSnapshot(int steps, int64_t base_mib, int64_t leak_mib,
                                     int64_t reserved_mib) {
  MemorySnapshot s;
  s.path = "synthetic.pickle";
  const auto entry = [&](TimeNs time, MemoryAction action, int64_t mib) {
    MemoryTraceEntry e;
    e.time = time;
    e.action = action;
    e.size = mib << 20;
    s.trace.push_back(e);
  };
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = StepStart(i);
    entry(start, MemoryAction::kAlloc, kActivationMiB);
    entry(start + 500, MemoryAction::kFreeCompleted, kActivationMiB);
    if (leak_mib > 0) entry(start + 600, MemoryAction::kAlloc, leak_mib);
  }
  const int64_t alive = (base_mib + steps * leak_mib) << 20;
  MemorySegment seg;
  seg.total_size = reserved_mib << 20;
  seg.allocated_size = alive;
  seg.block_count = 2;
  s.blocks.push_back({0, alive, alive, BlockState::kActiveAllocated});
  s.blocks.push_back({alive, seg.total_size - alive, kNoValue, BlockState::kInactive});
  s.segments.push_back(seg);
  s.layout.device_traces = true;
  return s;
}

}  // namespace gpuwhy
