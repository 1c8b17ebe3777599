// Value types of GPU op rows, shared by GpuOpTable and its detail pool.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

namespace gpuwhy {

constexpr int64_t kNoValue = -1;  // unknown integer field (correlation, bytes, ids)
constexpr float kNoFloat = std::numeric_limits<float>::quiet_NaN();

enum class GpuOpKind : uint8_t { kKernel, kMemcpy, kMemset };
enum class CopyDirection : uint8_t {
  kUnknown,
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kHostToHost,
  kPeerToPeer,
};
enum class MemoryKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kArray, kManaged };

// Kernel launch configuration as recorded by the profiler; -1 / NaN where absent.
struct LaunchConfig {
  std::array<int32_t, 3> grid{-1, -1, -1};
  std::array<int32_t, 3> block{-1, -1, -1};
  int32_t registers_per_thread = -1;
  int32_t shared_memory_bytes = -1;
  float blocks_per_sm = kNoFloat;
  float warps_per_sm = kNoFloat;
  float occupancy_pct = kNoFloat;
  int64_t graph_id = kNoValue;
  int64_t graph_node_id = kNoValue;
  int32_t queued = -1;
};

}  // namespace gpuwhy
