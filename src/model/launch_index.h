// The runtime/driver call of each correlation id, for Trace::FindLaunch: 4 bytes per launch
// where (correlation, row) pairs took 16 (20 MB on a 1.2M-launch Nsight export, most of
// it at the import's peak). Correlation ids are small dense counters in CUPTI and Kineto, so
// the index is usually a direct table, one row per id from the smallest to the largest (O(1)
// lookups); when the ids are sparse it is the rows sorted by id, searched through the
// correlation column itself. The column is passed to every call, not kept: a Trace moves.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/huge_pages.h"
#include "model/compact_column.h"
#include "model/correlation_range.h"
#include "model/gpu_op_types.h"
#include "model/tables.h"

namespace gpuwhy {

class LaunchIndex {
 public:
  // Indexes the rows i with keep(i) and a correlation id. Of rows sharing an id the first (in
  // row order) is the launch; the others are counted in duplicates().
  template <typename Keep>
  void Build(const IntColumn& correlation, Keep keep);

  // The launch row with |id| (a correlation id), or an invalid id.
  CpuSliceId Find(const IntColumn& correlation, int64_t id) const;
  // Calls f(correlation id, launch row) in ascending id order.
  template <typename F>
  void ForEach(const IntColumn& correlation, F f) const;

  size_t size() const { return size_; }
  int64_t duplicates() const { return duplicates_; }
  bool dense() const { return dense_; }
  size_t bytes() const { return rows_.capacity() * sizeof(uint32_t); }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  bool dense_ = false;
  int64_t lo_ = 0;  // dense: the id of rows_[0]
  // Dense: the row of id lo_ + k at k (kNone: no launch); sparse: the rows, sorted by id.
  std::vector<uint32_t> rows_;
  size_t size_ = 0;
  int64_t duplicates_ = 0;
};

template <typename Keep>
void LaunchIndex::Build(const IntColumn& correlation, Keep keep) {
  *this = LaunchIndex();
  const CorrelationRange ids = ScanCorrelations(correlation, keep);
  const size_t kept = ids.kept;
  const bool sorted = ids.sorted;
  if (kept == 0) return;
  // A direct table while it costs at most twice the sorted rows: its size is bounded by the
  // rows, never by the ids (span() saturates, so ids across the whole int64 range are sparse).
  const uint64_t range = ids.span();
  dense_ = range <= 2 * uint64_t{kept} + 1024;
  if (dense_) {
    lo_ = ids.lo;
    ReserveWithHugePages(rows_, static_cast<size_t>(range));
    rows_.assign(static_cast<size_t>(range), kNone);
    for (size_t i = 0; i < correlation.size(); ++i) {
      int64_t c = correlation[i];
      if (c == kNoValue || !keep(i)) continue;
      uint32_t& slot = rows_[static_cast<size_t>(ids.Offset(c))];
      if (slot == kNone) {
        slot = static_cast<uint32_t>(i);
        ++size_;
      } else {
        ++duplicates_;
      }
    }
    return;
  }
  ReserveWithHugePages(rows_, kept);
  for (size_t i = 0; i < correlation.size(); ++i) {
    if (correlation[i] != kNoValue && keep(i)) rows_.push_back(static_cast<uint32_t>(i));
  }
  if (!sorted) {  // by id, then row: the first row of an id stays first
    std::sort(rows_.begin(), rows_.end(), [&correlation](uint32_t a, uint32_t b) {
      int64_t ca = correlation[a], cb = correlation[b];
      return ca != cb ? ca < cb : a < b;
    });
  }
  auto end = std::unique(rows_.begin(), rows_.end(), [&correlation](uint32_t a, uint32_t b) {
    return correlation[a] == correlation[b];
  });
  duplicates_ = rows_.end() - end;
  rows_.erase(end, rows_.end());
  size_ = rows_.size();
}

template <typename F>
void LaunchIndex::ForEach(const IntColumn& correlation, F f) const {
  if (dense_) {
    for (size_t k = 0; k < rows_.size(); ++k) {
      if (rows_[k] != kNone)
        f(static_cast<int64_t>(static_cast<uint64_t>(lo_) + k), CpuSliceId(rows_[k]));
    }
    return;
  }
  for (uint32_t row : rows_) f(correlation[row], CpuSliceId(row));
}

}  // namespace gpuwhy
