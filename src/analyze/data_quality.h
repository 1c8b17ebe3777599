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
  bool reliable = true;  // no error and no warning
};

DataQualityResult ComputeDataQuality(const AnalysisInput& input, MetricSet& metrics);

}  // namespace gpuwhy
