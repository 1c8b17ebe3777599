#include "diagnose/catalog.h"

#include "diagnose/snapshot_rules/snapshot_rules.h"  // the allocator-snapshot kind

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>

namespace gpuwhy {

std::string_view ChecklistSectionName(ChecklistSection s) {
  static constexpr std::array<std::string_view, kChecklistSectionCount> kNames = {
      "baseline",         "timeline",         "input and CPU", "communication",
      "kernels and sync", "memory and model", "platform"};
  return kNames[static_cast<size_t>(s)];
}

const RuleParam* RuleSpec::FindParam(std::string_view name) const {
  for (const RuleParam& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const Catalog& Catalog::Default() {
  static const Catalog* catalog = [] {
    std::vector<RuleSpec> rules;
    for (auto* kind : {&TraceRuleSpecs, &PlatformRuleSpecs, &SignalRuleSpecs, &CrossRankRuleSpecs,
                       &SnapshotRuleSpecs}) {
      for (RuleSpec& spec : (*kind)()) rules.push_back(std::move(spec));
    }
    auto* built = new Catalog(std::move(rules));
    // Start-up check: every handle a rule reads names a parameter some spec declares.
    for (const ParamRef& ref : built->unresolved_params()) {
      fmt::print(stderr, "parameter handle {}.{} names no declared parameter\n", ref.rule,
                 ref.name);
    }
    GPUWHY_CHECK(built->unresolved_params().empty());
    return built;
  }();
  return *catalog;
}

std::vector<const ParamRef*> DeclaredParamRefs() {
  std::vector<const ParamRef*> refs;
  for (auto* kind : {&TraceParamRefs, &PlatformParamRefs, &SignalParamRefs, &CrossRankParamRefs,
                     &SnapshotParamRefs}) {
    for (const ParamRef* ref : (*kind)()) refs.push_back(ref);
  }
  return refs;
}

Catalog::Catalog(std::vector<RuleSpec> rules) : rules_(std::move(rules)) {
  for (const ParamRef* ref : DeclaredParamRefs()) {
    bool found = false;
    for (size_t r = 0; r < rules_.size() && !found; ++r) {
      if (rules_[r].id != ref->rule) continue;
      for (size_t p = 0; p < rules_[r].params.size() && !found; ++p) {
        if (rules_[r].params[p].name != ref->name) continue;
        resolved_.push_back({ref, r, p});
        found = true;
      }
    }
    if (!found) unresolved_.push_back(*ref);
  }
  std::sort(resolved_.begin(), resolved_.end(), [](const ResolvedParam& a, const ResolvedParam& b) {
    return std::less<const ParamRef*>()(a.ref, b.ref);
  });
}

const RuleParam& Catalog::Get(const ParamRef& param) const {
  auto it = std::lower_bound(resolved_.begin(), resolved_.end(), &param,
                             [](const ResolvedParam& have, const ParamRef* want) {
                               return std::less<const ParamRef*>()(have.ref, want);
                             });
  if (it == resolved_.end() || it->ref != &param) {
    fmt::print(stderr,
               "parameter handle {}.{} is not declared by a rule list or names no "
               "parameter of the catalog\n",
               param.rule, param.name);
  }
  GPUWHY_CHECK(it != resolved_.end() && it->ref == &param);
  return rules_[it->rule].params[it->param];
}

const RuleSpec& Catalog::Spec(std::string_view id) const {
  const RuleSpec* spec = Find(id);
  if (spec == nullptr) fmt::print(stderr, "unknown rule '{}'\n", id);
  GPUWHY_CHECK(spec != nullptr);
  return *spec;
}

const RuleSpec* Catalog::Find(std::string_view id) const {
  for (const RuleSpec& spec : rules_) {
    if (spec.id == id) return &spec;
  }
  return nullptr;
}

std::vector<std::string> Catalog::ChecklistRules(Checklist checklist, std::string_view item) const {
  std::vector<std::pair<int, std::string>> found;
  for (const RuleSpec& spec : rules_) {
    for (const ChecklistRef& ref : spec.checklist) {
      if (ref.checklist == checklist && ref.item == item) found.emplace_back(ref.position, spec.id);
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ids;
  for (auto& [position, id] : found) ids.push_back(std::move(id));
  return ids;
}

double Catalog::Param(std::string_view rule_id, std::string_view param) const {
  const RuleSpec* spec = Find(rule_id);
  GPUWHY_CHECK(spec != nullptr);
  const RuleParam* p = spec->FindParam(param);
  GPUWHY_CHECK(p != nullptr);
  return p->value;
}

}  // namespace gpuwhy
