// The efficiency sentences of a trace report (grid fill estimated from the launch arguments,
// model FLOPs and MFU, sampled GPU activity), worded once for the text and HTML reports.
#pragma once

#include <string>

#include "analyze/flops.h"
#include "analyze/gpu_metrics.h"
#include "analyze/sm_efficiency.h"

namespace gpuwhy::report {

// Empty when the trace's kernels carry no launch arguments.
std::string GridFillSentence(const SmEfficiencyResult& r);
// Empty when no matrix-multiply op had FLOPs.
std::string FlopsSentence(const FlopsResult& r);
// Empty without sampled GPU activity (GPU_METRICS).
std::string GpuMetricsSentence(const GpuMetricsResult& r);

}  // namespace gpuwhy::report
