// A handle to one tunable number of one rule, declared beside the rule's spec and listed by its
// family (rule_family.h). The Catalog resolves every listed handle to indices once, when it is
// built; rules read their thresholds through handles (Catalog::Get), never by name.
#pragma once

#include <string_view>

namespace gpuwhy {

struct ParamRef {
  std::string_view rule;  // "input.dataloader_wait"
  std::string_view name;  // "min_step_pct"
};

}  // namespace gpuwhy
