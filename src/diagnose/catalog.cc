#include "diagnose/catalog.h"

#include <algorithm>
#include <array>

namespace gpuwhy {

std::string_view ChecklistSectionName(ChecklistSection s) {
  static constexpr std::array<std::string_view, kChecklistSectionCount> kNames = {
      "baseline", "timeline", "input and CPU", "communication", "kernels and sync",
      "memory and model", "platform"};
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
    for (auto* kind : {&TraceRuleSpecs, &PlatformRuleSpecs, &SignalRuleSpecs, &CrossRankRuleSpecs}) {
      for (RuleSpec& spec : (*kind)()) rules.push_back(std::move(spec));
    }
    return new Catalog(std::move(rules));
  }();
  return *catalog;
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
