#include "analyze/temporal_breakdown.h"

namespace gpuwhy {

TemporalBreakdownResult ComputeTemporalBreakdown(const AnalysisInput&, MetricSet&) { return {}; }

}  // namespace gpuwhy
