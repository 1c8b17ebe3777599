#include "diagnose/finding_builder.h"

#include <fmt/args.h>
#include <fmt/format.h>

namespace gpuwhy {

Finding StartFinding(const RuleSpec& spec, Confidence confidence) {
  Finding f;
  f.id = spec.id;
  f.bottleneck_class = spec.bottleneck_class;
  f.severity = spec.default_severity;
  f.fixes = spec.fixes;
  f.verify = spec.verify;
  f.confidence = confidence;
  return f;
}

void AddEvidence(Finding& f, Metric metric, std::string comparison, double threshold,
                 const RuleParam* param) {
  FindingEvidence e;
  e.metric = std::move(metric);
  e.comparison = std::move(comparison);
  e.threshold = threshold;
  if (param != nullptr) e.threshold_source = param->source;
  f.evidence.push_back(std::move(e));
}

std::string FormatTitle(const RuleSpec& spec, std::span<const TitleArg> args) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const TitleArg& a : args) {
    // A text argument is one whose view points somewhere, even at "" (an optional clause left
    // out); only {name, value} leaves it null.
    if (a.text.data() != nullptr) {
      store.push_back(fmt::arg(a.name, std::string(a.text)));
    } else {
      store.push_back(fmt::arg(a.name, a.value));
    }
  }
  try {
    return fmt::vformat(spec.title_template, store);
  } catch (const fmt::format_error&) {
    return spec.title_template;
  }
}

}  // namespace gpuwhy
