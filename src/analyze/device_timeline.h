// Per-device busy intervals, computed once per trace and shared by the analyses.
#pragma once

#include <map>
#include <vector>

#include "analyze/kernel_class.h"
#include "base/interval_set.h"
#include "model/trace.h"

namespace gpuwhy {

struct DeviceTimeline {
  int32_t device = 0;
  Interval span;            // first GPU op start to last GPU op end on this device
  IntervalSet kernels;      // kernels only (TensorBoard plugin's convention)
  IntervalSet all_ops;      // kernels + memcpy + memset (HTA / Nsight Systems convention)
  IntervalSet computation;  // HTA COMPUTATION kernels
  IntervalSet communication;
  IntervalSet memory;             // memcpy / memset
  std::vector<uint32_t> op_rows;  // rows of trace.gpu_ops on this device, by start
};

struct DeviceTimelines {
  std::map<int32_t, DeviceTimeline> by_device;  // ordered: deterministic output
  // HTA kernel type and gpuwhy class of every gpu_ops row.
  std::vector<HtaKernelType> hta_type;
  std::vector<KernelClass> kernel_class;
};

DeviceTimelines BuildDeviceTimelines(const Trace& trace);

}  // namespace gpuwhy
