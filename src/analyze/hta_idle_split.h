// STUB: to be replaced by the analysis that owns this file.
#pragma once

#include "analyze/analysis_input.h"
#include "analyze/metric.h"

namespace gpuwhy {

struct HtaIdleSplitResult {};

HtaIdleSplitResult ComputeHtaIdleSplit(const AnalysisInput& input, MetricSet& metrics);

}  // namespace gpuwhy
