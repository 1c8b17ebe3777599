// Per-device busy intervals, computed once per trace and shared by the analyses.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "analyze/kernel_class.h"
#include "base/interval_set.h"
#include "model/trace.h"

namespace gpuwhy {

// A timeline's interval set, read as a const IntervalSet. Sets built from the same GPU ops
// are one set held by each of them, not copies: without a communication kernel the
// computation set is every kernel (1.24 M intervals, 30 MB, on the 198 MB Nsight benchmark
// export; issue 37). Forwards IntervalSet's const interface so readers are unchanged.
class SharedIntervalSet {
 public:
  SharedIntervalSet() = default;
  SharedIntervalSet(IntervalSet set)  // NOLINT: a set stands where a timeline set is read
      : set_(std::make_shared<const IntervalSet>(std::move(set))) {}

  const IntervalSet& get() const { return set_ ? *set_ : Empty(); }
  operator const IntervalSet&() const { return get(); }  // NOLINT: read as an IntervalSet
  const IntervalSet* operator->() const { return &get(); }
  // True when both hold one set (not merely equal ones).
  bool SharedWith(const SharedIntervalSet& other) const {
    return set_ != nullptr && set_ == other.set_;
  }

  const std::vector<Interval>& intervals() const { return get().intervals(); }
  bool empty() const { return get().empty(); }
  DurationNs TotalLength() const { return get().TotalLength(); }
  IntervalSet Union(const IntervalSet& other) const { return get().Union(other); }
  IntervalSet Intersect(const IntervalSet& other) const { return get().Intersect(other); }
  IntervalSet Subtract(const IntervalSet& other) const { return get().Subtract(other); }
  IntervalSet Clip(Interval window) const { return get().Clip(window); }
  IntervalSet Complement(Interval window) const { return get().Complement(window); }
  DurationNs CoveredLength(Interval window) const { return get().CoveredLength(window); }

 private:
  static const IntervalSet& Empty() {
    static const IntervalSet empty;
    return empty;
  }
  std::shared_ptr<const IntervalSet> set_;
};

struct DeviceTimeline {
  int32_t device = 0;
  Interval span;                  // first GPU op start to last GPU op end on this device
  SharedIntervalSet kernels;      // kernels only (TensorBoard plugin's convention)
  SharedIntervalSet all_ops;      // kernels + memcpy + memset (HTA / Nsight Systems convention)
  SharedIntervalSet computation;  // HTA COMPUTATION kernels
  SharedIntervalSet communication;
  SharedIntervalSet memory;       // memcpy / memset
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
