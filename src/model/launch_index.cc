#include "model/launch_index.h"

namespace gpuwhy {

CpuSliceId LaunchIndex::Find(const IntColumn& correlation, int64_t id) const {
  if (id == kNoValue || size_ == 0) return CpuSliceId();
  if (dense_) {
    uint64_t k = static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_);  // wraps below lo_
    if (k >= rows_.size() || rows_[k] == kNone) return CpuSliceId();
    return CpuSliceId(rows_[k]);
  }
  auto it =
      std::lower_bound(rows_.begin(), rows_.end(), id,
                       [&correlation](uint32_t row, int64_t c) { return correlation[row] < c; });
  if (it == rows_.end() || correlation[*it] != id) return CpuSliceId();
  return CpuSliceId(*it);
}

}  // namespace gpuwhy
