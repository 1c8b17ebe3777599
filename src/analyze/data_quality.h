// Data quality: what makes the other analyses' numbers unreliable (no ProfilerStep, a cut
// last step, GPU ops without a launch, overlapping ops on a stream, clock anomalies,
// truncated input, CPU-only traces), as a list of issues and quality.* metrics.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/metric.h"

namespace gpuwhy {

enum class QualitySeverity { kInfo, kWarning, kError };
std::string_view QualitySeverityName(QualitySeverity severity);

struct DataQualityIssue {
  std::string id;  // "steps_synthesized", "last_step_cut", "gpu_op_without_launch", ...
  QualitySeverity severity = QualitySeverity::kInfo;
  std::string message;
  int64_t count = 0;
};

struct DataQualityResult {
  std::vector<DataQualityIssue> issues;  // errors first, then warnings, then info
  bool reliable = true;                  // no error and no warning
};

DataQualityResult ComputeDataQuality(const AnalysisInput& input, MetricSet& metrics);

// What ComputeDataQuality emits (docs/metrics/data_quality.md).
namespace metric {
inline constexpr MetricDecl kQualityIssue{
    "quality.{issue}", unit::kCount, kRank,
    "the count of one data-quality issue that occurs (issue id as in DataQualityIssue::id)"};
inline constexpr MetricDecl kQualityIssues{"quality.issues", unit::kCount, kRank,
                                           "number of issues"};
inline constexpr MetricDecl kQualityWarnings{"quality.warnings", unit::kCount, kRank,
                                             "issues of severity warning"};
inline constexpr MetricDecl kQualityErrors{"quality.errors", unit::kCount, kRank,
                                           "issues of severity error"};
inline constexpr MetricDecl kQualityStepCount{"quality.step_count", unit::kCount, kRank,
                                              "steps in the trace (1 when synthesized)"};
inline constexpr const MetricDecl* kDataQualityMetrics[] = {
    &kQualityIssue, &kQualityIssues, &kQualityWarnings, &kQualityErrors, &kQualityStepCount};
}  // namespace metric

}  // namespace gpuwhy
