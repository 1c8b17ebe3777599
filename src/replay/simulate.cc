#include "replay/simulate.h"

#include <algorithm>

namespace gpuwhy {

EdgeIndex IndexEdgesBySource(const DependencyGraph& g) {
  EdgeIndex index;
  index.offset.assign(g.size() + 1, 0);
  for (uint32_t s : g.src) ++index.offset[s + 1];
  for (size_t p = 0; p < g.size(); ++p) index.offset[p + 1] += index.offset[p];
  index.edges.resize(g.edge_count());
  std::vector<uint32_t> fill(index.offset.begin(), index.offset.end() - 1);
  for (size_t e = 0; e < g.edge_count(); ++e)
    index.edges[fill[g.src[e]]++] = static_cast<uint32_t>(e);
  return index;
}

Schedule Simulate(const DependencyGraph& g, const EdgeIndex& index,
                  std::span<const DurationNs> weight, uint8_t model) {
  const size_t n = g.size();
  const bool longest_path = model == kInHta;
  Schedule s;
  s.binding.assign(n, kNoEdge);
  std::vector<uint32_t> pending(n, 0);
  for (size_t e = 0; e < g.edge_count(); ++e) {
    if (g.models[e] & model) ++pending[g.dst[e]];
  }
  s.time.resize(n);
  // Kahn's order; a point's time is final once its last incoming edge has been relaxed.
  std::vector<uint32_t> queue;
  queue.reserve(n);
  for (size_t p = 0; p < n; ++p) {
    s.time[p] = longest_path ? 0 : g.time[p];
    if (pending[p] == 0) queue.push_back(static_cast<uint32_t>(p));
  }
  std::vector<uint8_t> reached(n, 0);
  size_t done = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t u = queue[head];
    ++done;
    for (uint32_t k = index.offset[u]; k < index.offset[u + 1]; ++k) {
      const uint32_t e = index.edges[k];
      if ((g.models[e] & model) == 0) continue;
      const uint32_t v = g.dst[e];
      if (weight[e] == kRemovedEdge) {
        if (--pending[v] == 0) queue.push_back(v);
        continue;
      }
      const TimeNs t = s.time[u] + weight[e];
      if (!reached[v] || t > s.time[v]) {
        // The replay's time of a reached point is set by its edges alone.
        if (!reached[v] && !longest_path) s.time[v] = t;
        s.time[v] = std::max(s.time[v], t);
        s.binding[v] = e;
        reached[v] = 1;
      }
      if (--pending[v] == 0) queue.push_back(v);
    }
  }
  s.points_in_cycles = static_cast<int64_t>(n - done);
  return s;
}

DurationNs HtaCriticalPathLength(const DependencyGraph& g) {
  std::vector<DurationNs> w(g.edge_count());
  for (size_t e = 0; e < g.edge_count(); ++e) w[e] = g.HtaWeight(e);
  Schedule s = Simulate(g, IndexEdgesBySource(g), w, kInHta);
  DurationNs best = 0;
  for (TimeNs t : s.time) best = std::max(best, t);
  return best;
}

}  // namespace gpuwhy
