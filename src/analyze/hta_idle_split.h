// HTA's per-stream idle-time split (HolisticTraceAnalysis get_idle_time_breakdown): every
// gap between consecutive ops on a stream is host wait (the launching call started after
// the previous op ended: the CPU was late), kernel wait (a gap under
// consecutive_kernel_delay, launch overhead between back-to-back ops) or other.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/distribution.h"
#include "analyze/hta_view.h"
#include "analyze/metric.h"

namespace gpuwhy {

enum class HtaIdleCategory { kHostWait = 0, kKernelWait = 1, kOther = 2 };
inline constexpr size_t kHtaIdleCategories = 3;
std::string_view HtaIdleCategoryName(HtaIdleCategory c);  // "host_wait", HTA's labels

struct HtaIdleCategoryStats {
  DurationNs total_ns = 0;        // HTA idle_time (sum of the gaps, negative overlaps included)
  double ratio = 0;               // HTA idle_time_ratio: share of the stream's idle time
  DistributionSummary intervals;  // HTA idle_interval_stats, in µs
};

struct HtaStreamIdle {
  int32_t device = 0;
  int64_t stream = 0;
  int64_t op_count = 0;
  DurationNs total_idle_ns = 0;
  std::array<HtaIdleCategoryStats, kHtaIdleCategories> categories;
  EvidenceRange longest_gap;  // kind "idle_gap", label = its category; empty when no gap
};

struct HtaIdleSplitResult {
  std::vector<HtaStreamIdle> streams;  // by (device, stream)
  std::array<DurationNs, kHtaIdleCategories> rank_total_ns{};
  std::array<double, kHtaIdleCategories> rank_ratio{};
  std::vector<std::string> not_applicable;
};

// The split of |ops| (sorted by start, as in HtaView), one entry per (device, stream).
// HTA groups by stream id alone; streams of different devices are kept apart here.
std::vector<HtaStreamIdle> SplitIdleByStream(std::span<const ViewOp> ops,
                                             DurationNs kernel_wait_ns);

HtaIdleSplitResult ComputeHtaIdleSplit(const AnalysisInput& input, MetricSet& metrics);

// What ComputeHtaIdleSplit emits (docs/metrics/hta_idle_split.md).
namespace metric {
inline constexpr MetricDecl kHtaIdleUs{"hta_idle.{category}_us", unit::kUs, kRank | kStream,
                                       "sum of the stream gaps of that category (host_wait, "
                                       "kernel_wait, other); rank: over all streams"};
inline constexpr MetricDecl kHtaIdleRatio{
    "hta_idle.{category}_ratio", unit::kRatio, kRank | kStream,
    "the category's gaps / all gaps of the stream (rank: of all streams)"};
inline constexpr MetricDecl kHtaIdleCount{"hta_idle.{category}_count", unit::kCount, kStream,
                                          "number of gaps of that category on the stream"};
inline constexpr const MetricDecl* kHtaIdleSplitMetrics[] = {&kHtaIdleUs, &kHtaIdleRatio,
                                                             &kHtaIdleCount};
}  // namespace metric

}  // namespace gpuwhy
