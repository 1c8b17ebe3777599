#include "analyze/metric.h"

namespace gpuwhy {

void MetricSet::Add(std::string id, MetricScope scope, double value, std::string unit) {
  metrics_.push_back({std::move(id), scope, value, std::move(unit)});
}

const Metric* MetricSet::Find(std::string_view id, MetricScope scope) const {
  for (const Metric& m : metrics_) {
    if (m.id == id && m.scope.device == scope.device && m.scope.stream == scope.stream &&
        m.scope.step == scope.step) {
      return &m;
    }
  }
  return nullptr;
}

double MetricSet::ValueOr(std::string_view id, double fallback, MetricScope scope) const {
  const Metric* m = Find(id, scope);
  return m ? m->value : fallback;
}

void MetricSet::SetRank(int64_t rank) {
  for (Metric& m : metrics_) m.scope.rank = rank;
}

}  // namespace gpuwhy
