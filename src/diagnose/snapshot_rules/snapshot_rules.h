// The allocator-snapshot rules (memory.fragmentation, memory.empty_cache_churn,
// memory.oom_retries, memory.leak) over AllocatorState (analyze/allocator_state.h);
// memory.near_capacity is the trace rule's spec, assessed here only when the device capacity is
// known. One explicit list (snapshot_rules.cc) registers them; the catalog lists their specs.
#pragma once

#include <span>
#include <vector>

#include "analyze/allocator_state.h"
#include "analyze/memory_timeline_stats.h"
#include "diagnose/catalog.h"
#include "diagnose/diagnose.h"

namespace gpuwhy {

std::vector<RuleSpec> SnapshotRuleSpecs();
std::vector<const ParamRef*> SnapshotParamRefs();

// Findings about one snapshot's allocator state; healthy caching (a reservation the trace's own
// peak needed) gets none.
Diagnosis DiagnoseAllocatorState(const AllocatorState& state, const DiagnoseOptions& options);

// A profiler memory timeline's rules: memory.leak over its windows' troughs (a timeline has no
// allocator state: the other snapshot rules are not its to assess); memory.near_capacity not
// assessed (no capacity).
Diagnosis DiagnoseMemoryTimeline(const MemoryTimelineStats& timeline,
                                 const DiagnoseOptions& options);

}  // namespace gpuwhy
