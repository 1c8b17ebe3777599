// A family of rules: its specs (catalog entries) beside the function that evaluates them over
// one kind of input (a trace, metric series, system facts, every rank). Each kind registers
// its families in one explicit list (trace_rules/trace_rules.cc, signal_rules/signal_rules.cc,
// platform_rules/platform_rules.cc, cross_rank_rules/cross_rank_rules.cc); the catalog is built
// from those lists, and each kind's diagnosis evaluates its list in order.
#pragma once

#include <span>
#include <vector>

#include "diagnose/catalog.h"

namespace gpuwhy {

template <typename Context>
struct RuleFamily {
  // The rules this family owns; nullptr when it evaluates rules another family specifies
  // (e.g. memory.near_capacity from metric series).
  std::vector<RuleSpec> (*specs)() = nullptr;
  void (*evaluate)(Context&) = nullptr;
  // The handles of the parameters its evaluation reads (its own rules' or another family's);
  // nullptr when it reads none. The catalog resolves them when it is built.
  std::span<const ParamRef* const> (*params)() = nullptr;
  // Evaluated even when the capture holds no steady state (warmup.h): rules about the capture
  // itself, or that assess nothing per step. Every other family's rules are then left
  // unassessed, so no per-step cost is claimed from warm-up.
  bool without_steady_state = false;
};

template <typename Context>
std::vector<RuleSpec> SpecsOf(std::span<const RuleFamily<Context>> families) {
  std::vector<RuleSpec> rules;
  for (const RuleFamily<Context>& family : families) {
    if (family.specs == nullptr) continue;
    for (RuleSpec& spec : family.specs()) rules.push_back(std::move(spec));
  }
  return rules;
}

template <typename Context>
std::vector<const ParamRef*> ParamRefsOf(std::span<const RuleFamily<Context>> families) {
  std::vector<const ParamRef*> refs;
  for (const RuleFamily<Context>& family : families) {
    if (family.params == nullptr) continue;
    for (const ParamRef* ref : family.params()) refs.push_back(ref);
  }
  return refs;
}

template <typename Context>
void EvaluateAll(std::span<const RuleFamily<Context>> families, Context& ctx) {
  for (const RuleFamily<Context>& family : families) family.evaluate(ctx);
}

}  // namespace gpuwhy
