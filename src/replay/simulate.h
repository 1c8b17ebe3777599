// Replays a dependency graph: every point happens as early as its incoming edges allow
// (the latest predecessor plus the edge's delay), in one pass over a topological order.
// A point no edge reaches keeps its measured time. The edge that set each point's time is
// kept, so the critical path is read backwards from any point.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "replay/dependency_graph.h"

namespace gpuwhy {

inline constexpr uint32_t kNoEdge = std::numeric_limits<uint32_t>::max();
// A what-if's weight for an edge it removes (a wait that no longer happens).
inline constexpr DurationNs kRemovedEdge = std::numeric_limits<DurationNs>::min();

struct Schedule {
  std::vector<TimeNs> time;       // per point
  std::vector<uint32_t> binding;  // per point: the edge that set its time, or kNoEdge
  int64_t points_in_cycles = 0;   // points a cycle left unordered (kept at measured time)
};

// Out-edges grouped by source point (built once, reused by every replay of one graph).
struct EdgeIndex {
  std::vector<uint32_t> offset;  // per point + 1
  std::vector<uint32_t> edges;   // edge ids, grouped by source
};
EdgeIndex IndexEdgesBySource(const DependencyGraph& g);

// The replay with |weight| per edge (the graph's own or a what-if's), over the edges of
// |model| (kInReplay or kInHta). For kInHta every point starts at 0 and the result is the
// longest path length ending at each point (HTA's critical path: dag_longest_path).
Schedule Simulate(const DependencyGraph& g, const EdgeIndex& index,
                  std::span<const DurationNs> weight, uint8_t model);

// HolisticTraceAnalysis' critical path length over the whole graph (its HTA edges and their
// weights): the longest path of the DAG.
DurationNs HtaCriticalPathLength(const DependencyGraph& g);

}  // namespace gpuwhy
