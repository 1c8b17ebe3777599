// Named numbers with a unit and a scope: what every analysis emits. Ids are stable and
// documented in docs/metrics.md; renderers and the diagnosis read them by id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"

namespace gpuwhy {

// -1 in a field means "all" (e.g. device = -1: the whole rank).
struct MetricScope {
  int64_t rank = -1;
  int32_t device = -1;
  int64_t stream = -1;
  int64_t step = -1;  // ProfilerStep number

  static MetricScope Rank() { return {}; }
  static MetricScope Device(int32_t device) { return {-1, device, -1, -1}; }
  static MetricScope Stream(int32_t device, int64_t stream) { return {-1, device, stream, -1}; }
  static MetricScope Step(int64_t step) { return {-1, -1, -1, step}; }
  bool operator==(const MetricScope&) const = default;
};

struct Metric {
  std::string id;  // "temporal.idle_pct"
  MetricScope scope;
  double value = 0;
  std::string unit;  // "%", "ms", "us", "count", "bytes", "GB/s", "ratio"
};

// A time range that backs a metric or a finding (an idle gap, a slow step, a sync).
struct EvidenceRange {
  std::string kind;  // "idle_gap", "sync", "step", ...
  int32_t device = -1;
  int64_t stream = -1;
  TimeNs start = 0;
  TimeNs end = 0;
  std::string label;  // cause or top event name
};

class MetricSet {
 public:
  void Add(std::string id, MetricScope scope, double value, std::string unit);
  // Rank-wide scope unless given; nullptr when absent.
  const Metric* Find(std::string_view id, MetricScope scope = {}) const;
  double ValueOr(std::string_view id, double fallback, MetricScope scope = {}) const;
  const std::vector<Metric>& all() const { return metrics_; }
  void SetRank(int64_t rank);  // stamps every metric's scope.rank

 private:
  std::vector<Metric> metrics_;
};

// Units, written once.
namespace unit {
inline constexpr const char* kPercent = "%";
inline constexpr const char* kMs = "ms";
inline constexpr const char* kUs = "us";
inline constexpr const char* kCount = "count";
inline constexpr const char* kBytes = "bytes";
inline constexpr const char* kGBps = "GB/s";
inline constexpr const char* kRatio = "ratio";
}  // namespace unit

}  // namespace gpuwhy
