#include "analyze/metric_registry.h"

#include <vector>

#include "analyze/analysis.h"
#include "analyze/memory_timeline_stats.h"
#include "analyze/profile_summary_analysis.h"
#include "analyze/signals.h"

namespace gpuwhy {
namespace {

std::vector<const MetricDecl*> Collect() {
  std::vector<const MetricDecl*> all;
  for (std::span<const MetricDecl* const> list : {
           std::span<const MetricDecl* const>(metric::kUtilizationMetrics),
           std::span<const MetricDecl* const>(metric::kTemporalMetrics),
           std::span<const MetricDecl* const>(metric::kHtaIdleSplitMetrics),
           std::span<const MetricDecl* const>(metric::kStepBreakdownMetrics),
           std::span<const MetricDecl* const>(metric::kWarmupMetrics),
           std::span<const MetricDecl* const>(metric::kIdleGapsMetrics),
           std::span<const MetricDecl* const>(metric::kKernelStatsMetrics),
           std::span<const MetricDecl* const>(metric::kSmEfficiencyMetrics),
           std::span<const MetricDecl* const>(metric::kFlopsMetrics),
           std::span<const MetricDecl* const>(metric::kGpuMetricsMetrics),
           std::span<const MetricDecl* const>(metric::kLaunchStatsMetrics),
           std::span<const MetricDecl* const>(metric::kSyncCopiesMetrics),
           std::span<const MetricDecl* const>(metric::kCommunicationMetrics),
           std::span<const MetricDecl* const>(metric::kMemoryUsageMetrics),
           std::span<const MetricDecl* const>(metric::kMemoryTimelineMetrics),
           std::span<const MetricDecl* const>(metric::kDataQualityMetrics),
           std::span<const MetricDecl* const>(metric::kSignalMetrics),
           std::span<const MetricDecl* const>(metric::kProfileSummaryMetrics),
       }) {
    all.insert(all.end(), list.begin(), list.end());
  }
  return all;
}

}  // namespace

std::span<const MetricDecl* const> AllMetricDecls() {
  static const std::vector<const MetricDecl*> all = Collect();
  return all;
}

const MetricDecl* FindMetricDecl(std::string_view metric_id) {
  // An exact declaration wins over a family that would also match ("idle.total_ms" is not
  // the cause "total" of "idle.{cause}_ms").
  const MetricDecl* family = nullptr;
  for (const MetricDecl* d : AllMetricDecls()) {
    if (!d->Matches(metric_id)) continue;
    if (!d->IsFamily()) return d;
    if (family == nullptr) family = d;
  }
  return family;
}

}  // namespace gpuwhy
