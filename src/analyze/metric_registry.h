// Every metric declaration, in one explicit list (the analyses' own lists, in the order
// AnalyzeTrace runs them, then the signal analysis).
#pragma once

#include <span>
#include <string_view>

#include "analyze/metric.h"

namespace gpuwhy {

std::span<const MetricDecl* const> AllMetricDecls();
// The declaration `metric_id` is (exactly, or one of a family); nullptr when undeclared.
const MetricDecl* FindMetricDecl(std::string_view metric_id);

}  // namespace gpuwhy
