#include "analyze/device_timeline.h"

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
    Pending& p = pending[ops.device[i]];
    Interval interval{ops.start[i], ops.end[i]};
    p.rows.push_back(static_cast<uint32_t>(i));
    p.all.push_back(interval);
    if (ops.kind[i] == GpuOpKind::kKernel) p.kernels.push_back(interval);
    switch (it->second.first) {
      case HtaKernelType::kComputation: p.computation.push_back(interval); break;
      case HtaKernelType::kCommunication: p.communication.push_back(interval); break;
      case HtaKernelType::kMemory: p.memory.push_back(interval); break;
    }
  }
  for (auto& [device, p] : pending) {
    DeviceTimeline& t = result.by_device[device];
    t.device = device;
    t.kernels = IntervalSet::FromUnsorted(std::move(p.kernels));
    t.all_ops = IntervalSet::FromUnsorted(std::move(p.all));
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
