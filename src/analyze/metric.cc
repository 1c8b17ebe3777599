#include "analyze/metric.h"

#include <fmt/format.h>

#include "base/status.h"

namespace gpuwhy {

MetricScopeKinds ScopeKindOf(const MetricScope& scope) {
  if (scope.stream != -1) return metric::kStream;
  if (scope.device != -1) return metric::kDevice;
  if (scope.step != -1) return metric::kStep;
  return metric::kRank;
}

std::string MetricDecl::Id(std::string_view part) const {
  size_t open = id.find('{');
  size_t close = id.find('}', open);
  GPUWHY_CHECK(open != std::string_view::npos && close != std::string_view::npos);
  return fmt::format("{}{}{}", id.substr(0, open), part, id.substr(close + 1));
}

bool MetricDecl::Matches(std::string_view metric_id) const {
  if (!IsFamily()) return metric_id == id;
  return Part(metric_id).has_value();
}

std::optional<std::string_view> MetricDecl::Part(std::string_view metric_id) const {
  size_t open = id.find('{');
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view prefix = id.substr(0, open);
  std::string_view suffix = id.substr(id.find('}', open) + 1);
  if (metric_id.size() <= prefix.size() + suffix.size()) return std::nullopt;
  if (!metric_id.starts_with(prefix) || !metric_id.ends_with(suffix)) return std::nullopt;
  std::string_view part =
      metric_id.substr(prefix.size(), metric_id.size() - prefix.size() - suffix.size());
  for (char c : part) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return std::nullopt;
  }
  return part;
}

void MetricSet::Add(const MetricDecl& decl, MetricScope scope, double value) {
  GPUWHY_CHECK(!decl.IsFamily());
  metrics_.push_back({std::string(decl.id), scope, value, std::string(decl.unit)});
}

void MetricSet::Add(const MetricDecl& decl, std::string_view part, MetricScope scope,
                    double value) {
  metrics_.push_back({decl.Id(part), scope, value, std::string(decl.unit)});
}

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
