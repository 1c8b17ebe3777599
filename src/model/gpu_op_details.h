// The per-op details of GPU ops that repeat from op to op: the launch configuration of a
// kernel (the same kernel runs with the same grid, block and registers every step) and the
// size and memory kinds of a copy. GpuOpTable keeps each distinct combination once here and
// a 32-bit index per op, instead of ~75 bytes per op.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/gpu_op_types.h"

namespace gpuwhy {

struct GpuOpDetail {
  LaunchConfig launch;
  int64_t bytes = kNoValue;
  CopyDirection copy_direction = CopyDirection::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
};

class GpuOpDetailPool {
 public:
  // The index of |detail|, added when it is new. Equal details (NaN floats included) share
  // one index.
  uint32_t Intern(const GpuOpDetail& detail);
  const GpuOpDetail& operator[](uint32_t index) const { return details_[index]; }
  size_t size() const { return details_.size(); }
  // Frees the lookup used by Intern (rebuilt if Intern is called again).
  void DropIndex();

 private:
  using Key = std::array<uint64_t, 10>;
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  static Key KeyOf(const GpuOpDetail& detail);

  std::vector<GpuOpDetail> details_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  // Consecutive ops often share their detail (memsets, graph replays): skip the hash lookup.
  Key last_key_{};
  uint32_t last_ = kNone;
  static constexpr uint32_t kNone = 0xffffffffu;
};

}  // namespace gpuwhy
