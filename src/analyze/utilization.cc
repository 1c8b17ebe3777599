#include "analyze/utilization.h"

namespace gpuwhy {

UtilizationResult ComputeUtilization(const AnalysisInput&, MetricSet&) { return {}; }

}  // namespace gpuwhy
