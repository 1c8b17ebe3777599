// The building blocks of kernel_stats.h that the HTA golden test also calls directly:
// HTA's kernel-type sweep and the per-name table.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "analyze/kernel_stats.h"
#include "analyze/kernel_table.h"

namespace gpuwhy {
namespace {

// Bit order follows HTA's kernel_type_to_analysis list, which fixes the combined names.
constexpr std::array<HtaKernelType, 3> kTypeOrder = {
    HtaKernelType::kComputation, HtaKernelType::kCommunication, HtaKernelType::kMemory};

std::string ComboName(unsigned mask) {
  std::string name;
  for (size_t b = 0; b < kTypeOrder.size(); ++b) {
    if (!(mask & (1u << b))) continue;
    if (!name.empty()) name += " overlapping ";
    name += HtaKernelTypeName(kTypeOrder[b]);
  }
  return name;
}

unsigned TypeBit(HtaKernelType t) {
  for (size_t b = 0; b < kTypeOrder.size(); ++b) {
    if (kTypeOrder[b] == t) return 1u << b;
  }
  return 0;
}

}  // namespace

std::vector<HtaTypeShare> ComputeHtaTypeBreakdown(std::span<const ViewOp> ops) {
  // The view's ops are in start order: each type's set is merged as they come.
  std::array<IntervalSet::SortedBuilder, 3> raw;
  for (const ViewOp& op : ops) {
    if (op.is_sync) continue;
    for (size_t b = 0; b < kTypeOrder.size(); ++b) {
      if (kTypeOrder[b] == op.type) raw[b].Add({op.start, op.end});
    }
  }
  // Sweep the boundaries of the three merged sets; each segment belongs to one type mask. The
  // sets are walked in place: a vector of their edges (and std::inplace_merge's buffer) held
  // 144 MB at the peak of `analyze` on a 1.2M-kernel Nsight export (issue 37).
  std::array<IntervalSet, 3> merged;
  for (size_t b = 0; b < kTypeOrder.size(); ++b) merged[b] = std::move(raw[b]).Build();
  std::array<size_t, 3> next{};    // the set's first interval not yet left
  std::array<bool, 3> inside{};    // whether the sweep is inside merged[b][next[b]]
  auto boundary = [&](size_t b) {  // the set's next start or end; nullopt past its last
    const std::vector<Interval>& in = merged[b].intervals();
    if (next[b] >= in.size()) return std::optional<TimeNs>();
    return std::optional<TimeNs>(inside[b] ? in[next[b]].end : in[next[b]].start);
  };
  std::array<DurationNs, 8> by_mask{};
  unsigned mask = 0;
  TimeNs at = 0;
  while (true) {
    std::optional<TimeNs> t;
    for (size_t b = 0; b < merged.size(); ++b) {
      std::optional<TimeNs> e = boundary(b);
      if (e && (!t || *e < *t)) t = e;
    }
    if (!t) break;
    if (mask > 0) by_mask[mask] += *t - at;
    // Boundaries at one instant enclose no time: each set takes one step here, the next
    // iteration (at the same instant) any other.
    for (size_t b = 0; b < merged.size(); ++b) {
      if (boundary(b) != t) continue;
      if (inside[b]) ++next[b];
      inside[b] = !inside[b];
      mask ^= TypeBit(kTypeOrder[b]);
    }
    at = *t;
  }
  DurationNs total = 0;
  for (DurationNs v : by_mask) total += v;
  std::vector<HtaTypeShare> result;
  for (unsigned m = 1; m < by_mask.size(); ++m) {
    if (by_mask[m] == 0) continue;
    double pct =
        total > 0 ? 100.0 * static_cast<double>(by_mask[m]) / static_cast<double>(total) : 0.0;
    result.push_back({ComboName(m), by_mask[m], pct});
  }
  std::stable_sort(result.begin(), result.end(), [](const HtaTypeShare& a, const HtaTypeShare& b) {
    return a.total_ns > b.total_ns;
  });
  return result;
}

std::vector<KernelNameStats> ComputeNameStats(const Trace& trace, const DeviceTimelines& timelines,
                                              std::span<const ViewOp> ops) {
  std::unordered_map<uint32_t, size_t> index;
  std::vector<KernelNameStats> stats;
  std::vector<std::vector<double>> durations_us;
  DurationNs total = 0;
  for (const ViewOp& op : ops) {
    if (op.is_sync) continue;
    StringId name = trace.gpu_ops.name[op.row];
    auto [it, inserted] = index.emplace(name.value, stats.size());
    if (inserted) {
      KernelNameStats s;
      s.name = name;
      s.display_name = std::string(trace.Str(name));
      s.kernel_class = timelines.kernel_class[op.row];
      s.hta_type = timelines.hta_type[op.row];
      KernelInfo info = DescribeKernel(trace.gpu_ops.kind[op.row], s.display_name);
      s.tensor_cores = info.math == MathPath::kTensorCore;
      s.recognised = info.recognised;
      stats.push_back(std::move(s));
      durations_us.emplace_back();
    }
    KernelNameStats& s = stats[it->second];
    DurationNs d = op.end - op.start;
    ++s.count;
    s.total_ns += d;
    total += d;
    durations_us[it->second].push_back(NsToUs(d));
  }
  for (size_t i = 0; i < stats.size(); ++i) {
    stats[i].duration_us = Summarize(durations_us[i]);
    stats[i].time_pct =
        total > 0 ? 100.0 * static_cast<double>(stats[i].total_ns) / static_cast<double>(total) : 0;
  }
  std::sort(stats.begin(), stats.end(), [](const KernelNameStats& a, const KernelNameStats& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.display_name < b.display_name;
  });
  return stats;
}

}  // namespace gpuwhy
