// The options every diagnosing command takes (analyze, doctor): --fail-on, --set, --config,
// and how --set and --config change the rule catalog.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "diagnose/diagnose.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gpuwhy {

void AddDiagnosisFlags(CLI::App& command, std::string& fail_on,
                       std::vector<std::string>& overrides, std::string& config);

// The config file first, then each RULE.PARAM=VALUE (so --set wins).
Status ApplyRuleOverrides(const std::string& config, const std::vector<std::string>& overrides,
                          DiagnoseOptions& out);

}  // namespace gpuwhy
