// Named numbers with a unit and a scope: what every analysis emits. Every id is declared once
// (MetricDecl, beside the analysis that emits it; metric_registry.h lists them) and documented
// in docs/metrics/*.md; renderers and the diagnosis read them by id.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
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

// The scopes a declared metric is emitted at, as a bit set (rank-wide and per device, ...).
using MetricScopeKinds = uint8_t;
// In namespace metric, beside the declarations that use them unqualified.
namespace metric {
inline constexpr MetricScopeKinds kRank = 1;
inline constexpr MetricScopeKinds kDevice = 2;
inline constexpr MetricScopeKinds kStream = 4;
inline constexpr MetricScopeKinds kStep = 8;
}  // namespace metric
// The one kind a scope is: stream when a stream is set, else device, else step, else rank.
MetricScopeKinds ScopeKindOf(const MetricScope& scope);

// One metric, or one family of metrics whose id has a single {placeholder} filled in by the
// producer ("idle.{cause}_ms" emits "idle.input_wait_ms", "idle.comm_wait_ms", ...).
struct MetricDecl {
  std::string_view id;
  std::string_view unit;
  MetricScopeKinds scopes = metric::kRank;
  std::string_view definition;  // one line: how the number is computed

  bool IsFamily() const { return id.find('{') != std::string_view::npos; }
  // The id with its placeholder replaced by `part`; CHECKs that the declaration is a family.
  std::string Id(std::string_view part) const;
  // Whether `metric_id` is this declaration's id, or one of its family's (placeholder filled
  // with a non-empty [a-z0-9_] word).
  bool Matches(std::string_view metric_id) const;
  // The word that fills the family's placeholder in `metric_id` ("input_wait" of
  // "idle.input_wait_ms_per_step"); nullopt when `metric_id` is none of the family's, or the
  // declaration is no family.
  std::optional<std::string_view> Part(std::string_view metric_id) const;
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
  // Emits a declared metric: the id and the unit come from the declaration. A family takes
  // the word that fills its placeholder.
  void Add(const MetricDecl& decl, MetricScope scope, double value);
  void Add(const MetricDecl& decl, std::string_view part, MetricScope scope, double value);
  // An undeclared id, for tests only; analyses emit through a declaration.
  void Add(std::string id, MetricScope scope, double value, std::string unit);
  // Rank-wide scope unless given; nullptr when absent.
  const Metric* Find(std::string_view id, MetricScope scope = {}) const;
  double ValueOr(std::string_view id, double fallback, MetricScope scope = {}) const;
  const std::deque<Metric>& all() const { return metrics_; }
  void SetRank(int64_t rank);  // stamps every metric's scope.rank

 private:
  // A deque: a vector's growth held the old and the new copy at once, 327 MB for the 1.25M
  // per-step metrics of a 50,000-step trace (issue 37).
  std::deque<Metric> metrics_;
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
inline constexpr const char* kSeconds = "s";
inline constexpr const char* kTflop = "TFLOP";
inline constexpr const char* kTflops = "TFLOP/s";
}  // namespace unit

}  // namespace gpuwhy
