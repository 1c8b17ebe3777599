#include "model/kernel_profile.h"

namespace gpuwhy {

std::string_view NcuLayoutName(NcuLayout layout) {
  return layout == NcuLayout::kRaw ? "raw" : "details";
}

const KernelMetric* ProfiledKernel::Find(std::string_view name) const {
  for (const KernelMetric& metric : metrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

std::optional<double> ProfiledKernel::Value(std::initializer_list<std::string_view> names) const {
  for (std::string_view name : names) {
    const KernelMetric* metric = Find(name);
    if (metric != nullptr && metric->value) return metric->value;
  }
  return std::nullopt;
}

}  // namespace gpuwhy
