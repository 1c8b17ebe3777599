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

void DropInapplicableFixes(Finding& f, const JobFacts& facts) {
  std::vector<Fix> kept;
  for (Fix& fix : f.fixes) {
    std::string why = ContradictedNeed(fix.needs, facts);
    if (why.empty()) {
      kept.push_back(std::move(fix));
    } else {
      f.fixes_left_out.push_back({fix.action, std::move(why)});
    }
  }
  f.fixes = std::move(kept);
}

namespace {

// Whether |value| |comparison| |threshold| holds; unknown comparisons count as holding.
bool Holds(double value, std::string_view comparison, double threshold) {
  if (comparison == ">") return value > threshold;
  if (comparison == ">=") return value >= threshold;
  if (comparison == "<") return value < threshold;
  if (comparison == "<=") return value <= threshold;
  if (comparison == "==") return value == threshold;
  if (comparison == "!=") return value != threshold;
  return true;
}

// Classes whose cost is time per step: their high severity needs that time measured.
bool PerStepClass(BottleneckClass c) {
  return c == BottleneckClass::kInput || c == BottleneckClass::kHost ||
         c == BottleneckClass::kLaunch || c == BottleneckClass::kCompute ||
         c == BottleneckClass::kCommunication;
}

}  // namespace

void ApplyEvidencePolicy(Finding& f) {
  for (FindingEvidence& e : f.evidence) {
    bool context = e.threshold_source.empty() && e.threshold == 0;
    if (e.comparison.empty()) continue;
    if (context || !Holds(e.metric.value, e.comparison, e.threshold)) {
      e.comparison.clear();
      e.threshold = 0;
      e.threshold_source.clear();
    }
  }
  bool high = f.severity == Severity::kHigh || f.severity == Severity::kCritical;
  bool unmeasured = PerStepClass(f.bottleneck_class) && f.recoverable_ns_per_step <= 0;
  if (high && (f.confidence == Confidence::kLow || unmeasured)) f.severity = Severity::kMedium;
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
