#include "model/gpu_op_details.h"

#include <bit>

namespace gpuwhy {
namespace {

uint64_t Pair(int32_t low, int32_t high) {
  return static_cast<uint64_t>(static_cast<uint32_t>(low)) |
         static_cast<uint64_t>(static_cast<uint32_t>(high)) << 32;
}

uint64_t Pair(float low, int32_t high) { return Pair(std::bit_cast<int32_t>(low), high); }

}  // namespace

// Every field, floats by their bits (so NaN, "absent", equals itself); no padding bytes.
GpuOpDetailPool::Key GpuOpDetailPool::KeyOf(const GpuOpDetail& d) {
  const LaunchConfig& l = d.launch;
  return {Pair(l.grid[0], l.grid[1]),
          Pair(l.grid[2], l.block[0]),
          Pair(l.block[1], l.block[2]),
          Pair(l.registers_per_thread, l.shared_memory_bytes),
          Pair(l.blocks_per_sm, std::bit_cast<int32_t>(l.warps_per_sm)),
          Pair(l.occupancy_pct, l.queued),
          static_cast<uint64_t>(l.graph_id),
          static_cast<uint64_t>(l.graph_node_id),
          static_cast<uint64_t>(d.bytes),
          static_cast<uint64_t>(d.copy_direction) | static_cast<uint64_t>(d.src_kind) << 8 |
              static_cast<uint64_t>(d.dst_kind) << 16};
}

size_t GpuOpDetailPool::KeyHash::operator()(const Key& key) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t word : key) {
    h ^= word;
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return static_cast<size_t>(h);
}

uint32_t GpuOpDetailPool::Intern(const GpuOpDetail& detail) {
  Key key = KeyOf(detail);
  if (last_ != kNone && key == last_key_) return last_;
  if (index_.empty()) {  // after DropIndex, or the first call
    for (uint32_t i = 0; i < details_.size(); ++i) index_.try_emplace(KeyOf(details_[i]), i);
  }
  auto [it, inserted] = index_.try_emplace(key, static_cast<uint32_t>(details_.size()));
  if (inserted) details_.push_back(detail);
  last_key_ = key;
  last_ = it->second;
  return last_;
}

void GpuOpDetailPool::DropIndex() { index_ = {}; }

}  // namespace gpuwhy
