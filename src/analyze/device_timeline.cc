#include "analyze/device_timeline.h"

#include <map>
#include <unordered_map>

namespace gpuwhy {

DeviceTimelines BuildDeviceTimelines(const Trace& trace) {
  const GpuOpTable& ops = trace.gpu_ops;
  DeviceTimelines result;
  result.hta_type.resize(ops.size());
  result.kernel_class.resize(ops.size());
  // Classify each distinct name once: traces repeat a few thousand names millions of times.
  std::unordered_map<uint64_t, std::pair<HtaKernelType, KernelClass>> cache;
  struct Pending {
    std::vector<Interval> kernels, all, computation, communication, memory;
    std::vector<uint32_t> rows;
  };
  std::map<int32_t, Pending> pending;
  // Two passes: classify and count, then fill vectors reserved to their size. Grown by
  // push_back they kept up to half their capacity spare (FromUnsorted keeps a vector at least
  // half full): 40 MB of a 1.2M-kernel export's timelines, held through the diagnosis (issue 37).
  // A set whose ops are another set's ops is that set, held once, not filled again: all
  // ops are the kernels when no memcpy/memset ran, computation is the kernels when every
  // kernel computes (no communication or memory kernel) and nothing else computes.
  struct Counts {
    size_t kernels = 0, computation = 0, communication = 0, memory = 0, all = 0;
    size_t computing_kernels = 0;  // ops both kernels and HTA computation
    bool all_are_kernels() const { return all == kernels; }
    bool computation_is_kernels() const {
      return computation == kernels && computing_kernels == kernels;
    }
  };
  std::map<int32_t, Counts> counts;
  for (size_t i = 0; i < ops.size(); ++i) {
    uint64_t key =
        (static_cast<uint64_t>(ops.name[i].value) << 2) | static_cast<uint64_t>(ops.kind[i]);
    auto it = cache.find(key);
    if (it == cache.end()) {
      std::string_view name = trace.Str(ops.name[i]);
      it = cache
               .emplace(key, std::make_pair(ClassifyHtaType(ops.kind[i], name),
                                            ClassifyKernel(ops.kind[i], name)))
               .first;
    }
    result.hta_type[i] = it->second.first;
    result.kernel_class[i] = it->second.second;
    Counts& c = counts[ops.device[i]];
    ++c.all;
    if (ops.kind[i] == GpuOpKind::kKernel) {
      ++c.kernels;
      if (it->second.first == HtaKernelType::kComputation) ++c.computing_kernels;
    }
    switch (it->second.first) {
      case HtaKernelType::kComputation: ++c.computation; break;
      case HtaKernelType::kCommunication: ++c.communication; break;
      case HtaKernelType::kMemory: ++c.memory; break;
    }
  }
  for (const auto& [device, c] : counts) {
    Pending& p = pending[device];
    p.rows.reserve(c.all);
    if (!c.all_are_kernels()) p.all.reserve(c.all);
    p.kernels.reserve(c.kernels);
    if (!c.computation_is_kernels()) p.computation.reserve(c.computation);
    p.communication.reserve(c.communication);
    p.memory.reserve(c.memory);
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    Pending& p = pending[ops.device[i]];
    const Counts& c = counts[ops.device[i]];
    Interval interval{ops.start[i], ops.end[i]};
    p.rows.push_back(static_cast<uint32_t>(i));
    if (!c.all_are_kernels()) p.all.push_back(interval);
    if (ops.kind[i] == GpuOpKind::kKernel) p.kernels.push_back(interval);
    switch (result.hta_type[i]) {
      case HtaKernelType::kComputation:
        if (!c.computation_is_kernels()) p.computation.push_back(interval);
        break;
      case HtaKernelType::kCommunication: p.communication.push_back(interval); break;
      case HtaKernelType::kMemory: p.memory.push_back(interval); break;
    }
  }
  for (auto& [device, p] : pending) {
    DeviceTimeline& t = result.by_device[device];
    t.device = device;
    const Counts& c = counts[device];
    t.kernels = IntervalSet::FromUnsorted(std::move(p.kernels));
    if (c.all_are_kernels())
      t.all_ops = t.kernels;
    else
      t.all_ops = IntervalSet::FromUnsorted(std::move(p.all));
    if (c.computation_is_kernels())
      t.computation = t.kernels;
    else
      t.computation = IntervalSet::FromUnsorted(std::move(p.computation));
    t.communication = IntervalSet::FromUnsorted(std::move(p.communication));
    t.memory = IntervalSet::FromUnsorted(std::move(p.memory));
    t.op_rows = std::move(p.rows);
    if (!t.all_ops.empty())
      t.span = {t.all_ops.intervals().front().start, t.all_ops.intervals().back().end};
  }
  return result;
}

}  // namespace gpuwhy
