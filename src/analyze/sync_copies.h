// Synchronization and copies: host calls that block on the GPU (synchronize calls,
// synchronous copies, .item()-style device-to-host reads) with their call sites; the
// GPU-side waits (cuda_sync); copies by direction with bytes, pageable share and achieved
// bandwidth.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"
#include "analyze/runtime_calls.h"

namespace gpuwhy {

enum class BlockingKind : uint8_t {
  kDeviceSync,
  kStreamSync,
  kEventSync,
  kSyncMemcpy,  // cudaMemcpy, hipMemcpy, hipMemcpyWithStream, cudaMemset, ...
  kDtohStall,   // cudaMemcpyAsync to the host that waits: pageable destination or under .item()
};
constexpr size_t kBlockingKindCount = 5;
std::string_view BlockingKindName(BlockingKind kind);

struct BlockingCall {
  CpuSliceId call;
  BlockingKind kind = BlockingKind::kStreamSync;
  TimeNs start = 0;
  TimeNs end = 0;
  std::string issuer;        // nearest enclosing CPU op (or annotation), "" when none
  bool scalar_read = false;  // under aten::item / aten::_local_scalar_dense
  int64_t step = -1;         // step number, -1 outside steps
};

struct BlockingIssuer {
  std::string name;
  int64_t count = 0;
  DurationNs total = 0;
};

struct BlockingStepCount {
  int64_t step = 0;
  int64_t count = 0;
  DurationNs total = 0;
};

struct GpuWaitStats {
  int32_t device = 0;
  int64_t count = 0;
  DurationNs total = 0;  // sum of cuda_sync durations: waits, never busy time
};

struct CopyStats {
  int32_t device = 0;
  CopyDirection direction = CopyDirection::kUnknown;
  int64_t count = 0;
  int64_t bytes = 0;              // over copies that record their size
  DurationNs duration = 0;        // all copies
  DurationNs sized_duration = 0;  // copies that record their size (bandwidth denominator)
  int64_t pageable_count = 0;     // source or destination is pageable host memory
  int64_t pageable_bytes = 0;
  double gbps = 0;  // bytes / sized_duration; 0 when unknown
};

struct SyncCopiesResult {
  std::vector<BlockingCall> blocking;  // by start
  std::array<int64_t, kBlockingKindCount> count_by_kind{};
  std::array<DurationNs, kBlockingKindCount> time_by_kind{};
  int64_t blocking_count = 0;
  DurationNs blocking_total = 0;
  int64_t scalar_reads = 0;
  std::vector<BlockingIssuer> issuers;  // most time first
  std::vector<BlockingStepCount> per_step;
  std::vector<EvidenceRange> top_blocking;  // the longest blocking calls
  std::vector<GpuWaitStats> gpu_waits;      // by device
  std::vector<CopyStats> copies;            // by (device, direction)
  std::vector<std::string> not_applicable;
};

SyncCopiesResult ComputeSyncCopies(const AnalysisInput& input, MetricSet& metrics);

// What ComputeSyncCopies emits (docs/metrics/sync_copies.md).
namespace metric {
inline constexpr MetricDecl kSyncBlockingCalls{
    "sync.blocking_calls", unit::kCount, kRank | kStep,
    "host calls that wait for the GPU (step: the call starts in the step's host extent)"};
inline constexpr MetricDecl kSyncBlockingMs{"sync.blocking_ms", unit::kMs, kRank | kStep,
                                            "total duration of the blocking calls"};
inline constexpr MetricDecl kSyncBlockingPct{"sync.blocking_pct", unit::kPercent, kRank,
                                             "blocking time / sum of step host durations"};
inline constexpr MetricDecl kSyncScalarReads{
    "sync.scalar_reads", unit::kCount, kRank,
    "blocking calls under aten::item / aten::_local_scalar_dense"};
inline constexpr MetricDecl kSyncKindCalls{"sync.{kind}_calls", unit::kCount, kRank,
                                           "blocking calls of that kind"};
inline constexpr MetricDecl kSyncKindMs{"sync.{kind}_ms", unit::kMs, kRank,
                                        "total duration of the blocking calls of that kind"};
inline constexpr MetricDecl kSyncGpuWaitCount{"sync.gpu_wait_count", unit::kCount, kDevice,
                                              "Kineto cuda_sync records (GPU-side waits)"};
inline constexpr MetricDecl kSyncGpuWaitMs{"sync.gpu_wait_ms", unit::kMs, kDevice,
                                           "summed duration of the cuda_sync records"};
inline constexpr MetricDecl kCopyDirCount{"copy.{dir}_count", unit::kCount, kDevice,
                                          "memcpy ops in that direction"};
inline constexpr MetricDecl kCopyDirBytes{
    "copy.{dir}_bytes", unit::kBytes, kDevice,
    "bytes copied in that direction (copies that record bytes)"};
inline constexpr MetricDecl kCopyDirMs{"copy.{dir}_ms", unit::kMs, kDevice,
                                       "summed copy durations in that direction"};
inline constexpr MetricDecl kCopyDirGbps{"copy.{dir}_gbps", unit::kGBps, kDevice,
                                         "bytes / duration over the copies that record their size"};
inline constexpr MetricDecl kCopyDirPageableCount{
    "copy.{dir}_pageable_count", unit::kCount, kDevice,
    "copies in that direction from or to pageable host memory"};
inline constexpr MetricDecl kCopyDirPageableBytes{"copy.{dir}_pageable_bytes", unit::kBytes,
                                                  kDevice, "bytes of those pageable copies"};
inline constexpr MetricDecl kCopyPageableCount{"copy.pageable_count", unit::kCount, kRank,
                                               "all pageable copies"};
inline constexpr MetricDecl kCopyPageableBytes{"copy.pageable_bytes", unit::kBytes, kRank,
                                               "bytes of all pageable copies"};
inline constexpr const MetricDecl* kSyncCopiesMetrics[] = {
    &kSyncBlockingCalls,    &kSyncBlockingMs,       &kSyncBlockingPct,   &kSyncScalarReads,
    &kSyncKindCalls,        &kSyncKindMs,           &kSyncGpuWaitCount,  &kSyncGpuWaitMs,
    &kCopyDirCount,         &kCopyDirBytes,         &kCopyDirMs,         &kCopyDirGbps,
    &kCopyDirPageableCount, &kCopyDirPageableBytes, &kCopyPageableCount, &kCopyPageableBytes};
}  // namespace metric

}  // namespace gpuwhy
