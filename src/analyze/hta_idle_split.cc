#include "analyze/hta_idle_split.h"

namespace gpuwhy {

HtaIdleSplitResult ComputeHtaIdleSplit(const AnalysisInput&, MetricSet&) { return {}; }

}  // namespace gpuwhy
