#include "ranks/rank_summary.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace gpuwhy {
namespace {

// Longest names first where one contains another ("AllReduce" before "Reduce").
constexpr std::array<std::string_view, 10> kCollectiveKinds = {
    "AllReduce", "ReduceScatter", "AllGather", "AllToAll", "SendRecv",
    "Broadcast", "Reduce",        "Gather",    "Send",     "Recv"};

// The step whose analysed extent holds `t`, or nullptr; extents are sorted and disjoint.
// Found by position, never by number: concatenated captures repeat step numbers.
const StepExtent* StepHolding(const StepExtents& extents, TimeNs t) {
  auto it = std::upper_bound(extents.steps.begin(), extents.steps.end(), t,
                             [](TimeNs v, const StepExtent& s) { return v < s.window.start; });
  if (it == extents.steps.begin()) return nullptr;
  --it;
  return t < it->window.end ? &*it : nullptr;
}

const IntervalSet* InputWaitSet(const IdleGapsResult& idle, int32_t device) {
  for (const DeviceIdleGaps& d : idle.devices) {
    if (d.device == device) return &d.by_cause[static_cast<size_t>(IdleCause::kInputWait)];
  }
  return nullptr;
}

void AddSteps(const TraceAnalysis& analysis, RankSummary& out) {
  for (size_t c = 0; c < kStepCategoryCount; ++c)
    out.step_categories.emplace_back(StepCategoryName(static_cast<StepCategory>(c)));
  // The breakdown has one row per extent, in order, unless it did not run (no timed events).
  const std::vector<StepExtent>& extents = analysis.steps.extents.steps;
  const std::vector<StepCosts>& costs = analysis.steps.steps;
  bool broken_down = costs.size() == extents.size();
  for (size_t i = 0; i < extents.size(); ++i) {
    const StepExtent& s = extents[i];
    RankStepTiming step;
    step.number = s.number;
    step.start = s.host.start;
    step.end = s.window.end;
    for (const auto& [device, timeline] : analysis.timelines.by_device) {
      step.compute_ns += timeline.computation.CoveredLength(s.window);
      if (const IntervalSet* wait = InputWaitSet(analysis.idle_gaps, device)) {
        step.input_wait_ns += wait->CoveredLength(s.window);
      }
    }
    if (broken_down) {
      step.time_ns = costs[i].total_ns;
      step.category_ns.assign(costs[i].ns.begin(), costs[i].ns.end());
    }
    out.steps.push_back(std::move(step));
  }
}

void AddCollectives(const Trace& trace, const TraceAnalysis& analysis, RankSummary& out) {
  std::unordered_map<uint32_t, const CollectiveRecord*> records;
  for (const CollectiveRecord& r : analysis.communication.collectives) records[r.op.value] = &r;
  std::unordered_map<uint32_t, StringId> groups;
  for (const CollectiveTable::Row& row : trace.collectives.rows) {
    if (row.gpu_op.valid() && row.process_group_name.valid())
      groups[row.gpu_op.value] = row.process_group_name;
  }
  const GpuOpTable& ops = trace.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (analysis.timelines.hta_type[i] != HtaKernelType::kCommunication) continue;
    RankCollectiveTiming c;
    c.kind = CollectiveKindFromKernel(trace.Str(ops.name[i]));
    if (c.kind.empty()) c.kind = std::string(trace.Str(ops.name[i]).substr(0, 40));
    c.device = ops.device[i];
    c.start = ops.start[i];
    c.end = ops.end[i];
    const StepExtent* step = StepHolding(analysis.steps.extents, c.start);
    c.step = step != nullptr ? step->number : kNoValue;
    // AddSteps keeps one entry per extent, in order: the extent's position is the step's.
    if (step != nullptr) c.step_index = step - analysis.steps.extents.steps.data();
    if (auto it = records.find(static_cast<uint32_t>(i)); it != records.end()) {
      c.bytes = it->second->bytes;
      c.group_size = it->second->group_size;
    }
    if (auto it = groups.find(static_cast<uint32_t>(i)); it != groups.end()) {
      c.process_group = std::string(trace.Str(it->second));
    }
    if (step != nullptr) {
      Interval before{step->window.start, c.start};
      if (auto it = analysis.timelines.by_device.find(c.device);
          it != analysis.timelines.by_device.end()) {
        c.compute_before_ns = it->second.computation.CoveredLength(before);
      }
      if (const IntervalSet* wait = InputWaitSet(analysis.idle_gaps, c.device)) {
        c.input_wait_before_ns = wait->CoveredLength(before);
      }
    }
    out.collectives.push_back(std::move(c));
  }
  std::stable_sort(out.collectives.begin(), out.collectives.end(),
                   [](const RankCollectiveTiming& a, const RankCollectiveTiming& b) {
                     return a.start < b.start;
                   });
}

void AddKernelTotals(const Trace& trace, const TraceAnalysis& analysis, RankSummary& out) {
  std::unordered_map<uint32_t, KernelTotal> by_name;
  const GpuOpTable& ops = trace.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel) continue;
    if (analysis.timelines.hta_type[i] != HtaKernelType::kComputation) continue;
    KernelTotal& k = by_name[ops.name[i].value];
    k.count++;
    k.total_ns += ops.end[i] - ops.start[i];
    if (k.name.empty()) k.name = std::string(trace.Str(ops.name[i]));
  }
  for (auto& [id, total] : by_name) out.kernels.push_back(std::move(total));
  std::sort(out.kernels.begin(), out.kernels.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (out.kernels.size() > RankSummary::kMaxKernelNames)
    out.kernels.resize(RankSummary::kMaxKernelNames);
}

void AddKernelStats(const KernelStatsResult& stats, RankSummary& out) {
  for (const KernelNameStats& k : stats.all_names)
    out.kernel_stats.push_back({k.display_name, k.count, k.total_ns});
}

}  // namespace

double RankSummary::MetricValue(std::string_view id, double fallback) const {
  for (const gpuwhy::Metric& m : metrics) {
    if (m.id == id) return m.value;
  }
  return fallback;
}

std::string CollectiveKindFromKernel(std::string_view kernel_name) {
  std::string_view name = kernel_name.substr(0, kernel_name.find('('));
  if (name.find("nccl") == std::string_view::npos && name.find("rccl") == std::string_view::npos)
    return "";
  for (std::string_view kind : kCollectiveKinds) {
    if (name.find(kind) != std::string_view::npos) return std::string(kind);
  }
  return "";
}

RankSummary SummarizeRank(const Trace& trace, const TraceAnalysis& analysis,
                          SummaryKernelStats kernel_stats) {
  RankSummary out;
  out.path = trace.metadata.path;
  out.rank = trace.rank.rank;
  out.rank_source = trace.rank.source;
  out.world_size = trace.rank.world_size;
  for (int32_t device : trace.active_devices()) {
    if (const DeviceTable::Row* row = trace.devices.Find(device);
        row != nullptr && row->name.valid()) {
      out.device_name = std::string(trace.Str(row->name));
      break;
    }
  }
  for (const gpuwhy::Metric& m : analysis.metrics.all()) {
    if (m.scope == MetricScope::Rank() ||
        (m.scope.device == -1 && m.scope.stream == -1 && m.scope.step == -1)) {
      out.metrics.push_back(m);
    }
  }
  AddSteps(analysis, out);
  AddCollectives(trace, analysis, out);
  AddKernelTotals(trace, analysis, out);
  if (kernel_stats == SummaryKernelStats::kEveryName) {
    AddKernelStats(analysis.kernels, out);
    out.kernel_stats_complete = true;
  }
  return out;
}

}  // namespace gpuwhy
