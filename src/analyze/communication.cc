#include "analyze/communication.h"

#include <map>

#include "analyze/collective_sizes.h"
#include "analyze/hta_view.h"
#include "analyze/runtime_calls.h"
#include "base/percent.h"

namespace gpuwhy {
namespace {

struct CommSets {
  IntervalSet computation;
  IntervalSet communication;
  int64_t kernel_count = 0;
  DurationNs kernel_time = 0;
};

// Per device computation and communication sets, after HTA's filter when it is active.
std::map<int32_t, CommSets> BuildSets(const AnalysisInput& input, const std::vector<bool>& kept) {
  const GpuOpTable& ops = input.trace.gpu_ops;
  std::map<int32_t, std::pair<std::vector<Interval>, std::vector<Interval>>> pending;
  std::map<int32_t, CommSets> sets;
  // --hta-compat: HTA's get_comm_comp_overlap sees its loader's µs-rounded times.
  const bool rounded = input.options.hta_compat && HtaRoundsTrace(input.trace);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!kept[i]) continue;
    HtaKernelType type = input.timelines.hta_type[i];
    auto& [comp, comm] = pending[ops.device[i]];
    CommSets& s = sets[ops.device[i]];
    Interval times =
        rounded ? HtaRoundInterval(ops.start[i], ops.end[i]) : Interval{ops.start[i], ops.end[i]};
    if (type == HtaKernelType::kComputation) comp.push_back(times);
    if (type != HtaKernelType::kCommunication) continue;
    comm.push_back(times);
    ++s.kernel_count;
    s.kernel_time += times.length();
  }
  for (auto& [device, lists] : pending) {
    sets[device].computation = IntervalSet::FromUnsorted(std::move(lists.first));
    sets[device].communication = IntervalSet::FromUnsorted(std::move(lists.second));
  }
  return sets;
}

CommDeviceStats Stats(int32_t device, const CommSets& s) {
  CommDeviceStats d;
  d.device = device;
  d.kernel_count = s.kernel_count;
  d.kernel_time = s.kernel_time;
  d.comm_time = s.communication.TotalLength();
  d.overlapped = s.communication.Intersect(s.computation).TotalLength();
  d.exposed = d.comm_time - d.overlapped;
  if (d.comm_time > 0)
    d.overlap_pct = 100.0 * static_cast<double>(d.overlapped) / static_cast<double>(d.comm_time);
  return d;
}

std::vector<CommStepStats> PerStep(const Trace& trace, const std::map<int32_t, CommSets>& sets) {
  std::vector<CommStepStats> out;
  if (trace.steps.synthesized) return out;
  for (const StepTable::Row& row : trace.steps.rows) {
    CommStepStats s;
    s.step = row.number;
    Interval window{row.device_start, row.device_end};
    s.step_time = window.length();
    for (const auto& [device, set] : sets) {
      IntervalSet comm = set.communication.Clip(window);
      s.comm_time += comm.TotalLength();
      s.exposed += comm.Subtract(set.computation).TotalLength();
    }
    out.push_back(s);
  }
  return out;
}

void AddDeviceMetrics(const CommDeviceStats& d, MetricScope scope, MetricSet& m) {
  m.Add(metric::kCommKernelCount, scope, static_cast<double>(d.kernel_count));
  m.Add(metric::kCommKernelMs, scope, NsToMs(d.kernel_time));
  m.Add(metric::kCommTimeMs, scope, NsToMs(d.comm_time));
  m.Add(metric::kCommOverlapPct, scope, d.overlap_pct);
  m.Add(metric::kCommExposedMs, scope, NsToMs(d.exposed));
  m.Add(metric::kCommExposedPct, scope, PercentOf(d.exposed, d.comm_time));
}

void EmitMetrics(const CommunicationResult& r, MetricSet& m) {
  AddDeviceMetrics(r.rank, MetricScope::Rank(), m);
  if (r.devices.size() > 1) {
    for (const CommDeviceStats& d : r.devices)
      AddDeviceMetrics(d, MetricScope::Device(d.device), m);
  }
  for (const CommStepStats& s : r.per_step) {
    MetricScope scope = MetricScope::Step(s.step);
    m.Add(metric::kCommTimeMs, scope, NsToMs(s.comm_time));
    m.Add(metric::kCommExposedMs, scope, NsToMs(s.exposed));
    m.Add(metric::kCommExposedStepPct, scope, PercentOf(s.exposed, s.step_time));
  }
  int64_t count = 0, bytes = 0;
  DurationNs time = 0;
  double bus_bytes = 0;
  for (const CollectiveRecord& c : r.collectives) {
    if (c.bytes < 0) continue;
    ++count;
    bytes += c.bytes;
    time += c.end - c.start;
    bus_bytes += static_cast<double>(c.bytes) * c.busbw_factor;
  }
  if (count == 0) return;
  MetricScope rank = MetricScope::Rank();
  m.Add(metric::kCommCollectivesSized, rank, static_cast<double>(count));
  m.Add(metric::kCommBytes, rank, static_cast<double>(bytes));
  if (time <= 0) return;
  m.Add(metric::kCommAlgbwGbps, rank, static_cast<double>(bytes) / static_cast<double>(time));
  m.Add(metric::kCommBusbwGbps, rank, bus_bytes / static_cast<double>(time));
}

}  // namespace

CommunicationResult ComputeCommunication(const AnalysisInput& input, MetricSet& metrics) {
  const Trace& trace = input.trace;
  CommunicationResult r;
  HtaFilter filter = MakeHtaFilter(input);
  std::vector<bool> kept(trace.gpu_ops.size());
  for (size_t i = 0; i < kept.size(); ++i) kept[i] = filter.GpuOpKept(trace, i);
  std::map<int32_t, CommSets> sets = BuildSets(input, kept);
  CommSets all;
  for (const auto& [device, s] : sets) {
    r.devices.push_back(Stats(device, s));
    all.computation = all.computation.Union(s.computation);
    all.communication = all.communication.Union(s.communication);
    all.kernel_count += s.kernel_count;
    all.kernel_time += s.kernel_time;
  }
  r.rank = Stats(-1, all);
  if (all.kernel_count == 0) {
    r.not_applicable.push_back(
        trace.gpu_ops.size() == 0
            ? "comm: the trace has no GPU ops"
            : "comm: no communication kernels (single-GPU job, or NCCL/RCCL not traced)");
    return r;
  }
  r.per_step = PerStep(trace, sets);
  r.collectives = BuildCollectiveRecords(trace, input.timelines, kept);
  r.by_collective = SummarizeCollectives(r.collectives);
  if (r.collectives.empty()) {
    r.not_applicable.push_back(
        "comm bandwidth: the trace records no collective sizes (PyTorch 2.1+ records them on NCCL "
        "kernels)");
  }
  EmitMetrics(r, metrics);
  return r;
}

}  // namespace gpuwhy
