// Communication on one rank: collective kernels' time, their overlap with computation
// (HTA get_comm_comp_overlap), the exposed (non-overlapped) part per step, and per
// collective the message size with algorithm and bus bandwidth (nccl-tests formulas).
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"

namespace gpuwhy {

struct CommDeviceStats {
  int32_t device = -1;  // -1: the whole rank (union over its devices, as HTA computes it)
  int64_t kernel_count = 0;
  DurationNs kernel_time = 0;  // sum of communication kernel durations
  DurationNs comm_time = 0;    // |∪ communication kernels|
  DurationNs overlapped = 0;   // |computation ∩ communication|
  DurationNs exposed = 0;      // comm_time - overlapped
  double overlap_pct = 0;      // HTA comp_comm_overlap_pctg (unrounded)
};

struct CommStepStats {
  int64_t step = 0;
  DurationNs step_time = 0;  // device-side extent of the step
  DurationNs comm_time = 0;
  DurationNs exposed = 0;
};

struct CollectiveRecord {
  std::string name;  // "allreduce", "all_gather", ...
  GpuOpId op;
  int32_t device = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  int64_t bytes = kNoValue;  // max(in, out) elements × dtype size: nccl-tests' "size"
  int64_t group_size = kNoValue;
  double algbw_gbps = 0;    // bytes / duration; 0 when unknown
  double busbw_factor = 0;  // 2(n-1)/n all-reduce, (n-1)/n gather/scatter/all-to-all, 1 otherwise
  double busbw_gbps = 0;
};

struct CollectiveSummary {
  std::string name;
  int64_t count = 0;
  int64_t bytes = 0;
  DurationNs time = 0;
  double algbw_gbps = 0;  // total bytes / total time
  double busbw_gbps = 0;
};

struct CommunicationResult {
  CommDeviceStats rank;
  std::vector<CommDeviceStats> devices;
  std::vector<CommStepStats> per_step;
  std::vector<CollectiveRecord> collectives;     // by start; only those with a GPU kernel
  std::vector<CollectiveSummary> by_collective;  // most time first
  std::vector<std::string> not_applicable;
};

CommunicationResult ComputeCommunication(const AnalysisInput& input, MetricSet& metrics);

// What ComputeCommunication emits (docs/metrics/communication.md).
namespace metric {
inline constexpr MetricDecl kCommKernelCount{
    "comm.kernel_count", unit::kCount, kRank | kDevice,
    "communication kernels (device rows only when the rank drove several devices)"};
inline constexpr MetricDecl kCommKernelMs{"comm.kernel_ms", unit::kMs, kRank | kDevice,
                                          "sum of the communication kernel durations"};
inline constexpr MetricDecl kCommTimeMs{
    "comm.time_ms", unit::kMs, kRank | kDevice | kStep,
    "|union of communication kernels| (step: clipped to the step's device extent)"};
inline constexpr MetricDecl kCommOverlapPct{
    "comm.overlap_pct", unit::kPercent, kRank | kDevice,
    "|computation and communication| / |communication| (HTA comp_comm_overlap_pctg)"};
inline constexpr MetricDecl kCommExposedMs{
    "comm.exposed_ms", unit::kMs, kRank | kDevice | kStep,
    "|communication - computation|: communication not hidden under computation"};
inline constexpr MetricDecl kCommExposedPct{"comm.exposed_pct", unit::kPercent, kRank | kDevice,
                                            "exposed communication / communication time"};
inline constexpr MetricDecl kCommExposedStepPct{
    "comm.exposed_step_pct", unit::kPercent, kStep,
    "exposed communication / the step's device-side duration"};
inline constexpr MetricDecl kCommCollectivesSized{"comm.collectives_sized", unit::kCount, kRank,
                                                  "collectives whose message size is known"};
inline constexpr MetricDecl kCommBytes{"comm.bytes", unit::kBytes, kRank,
                                       "total message size of the sized collectives"};
inline constexpr MetricDecl kCommAlgbwGbps{
    "comm.algbw_gbps", unit::kGBps, kRank,
    "total bytes / total kernel time of the sized collectives (nccl-tests algbw)"};
inline constexpr MetricDecl kCommBusbwGbps{
    "comm.busbw_gbps", unit::kGBps, kRank,
    "sum of bytes x bus factor / total time (nccl-tests busbw)"};
inline constexpr const MetricDecl* kCommunicationMetrics[] = {
    &kCommKernelCount, &kCommKernelMs,   &kCommTimeMs,         &kCommOverlapPct,
    &kCommExposedMs,   &kCommExposedPct, &kCommExposedStepPct, &kCommCollectivesSized,
    &kCommBytes,       &kCommAlgbwGbps,  &kCommBusbwGbps};
}  // namespace metric

// nccl-tests' bus bandwidth factor for a collective name and group size; 0 when unknown.
double BusBandwidthFactor(std::string_view collective, int64_t group_size);
// Bytes per element of a PyTorch dtype name ("Float", "BFloat16", "c10::Half"); 0 if unknown.
int64_t DtypeBytes(std::string_view dtype);

}  // namespace gpuwhy
