#include "cli/diagnosis_flags.h"

#include <CLI/CLI.hpp>

namespace gpuwhy {

void AddDiagnosisFlags(CLI::App& command, std::string& fail_on,
                       std::vector<std::string>& overrides, std::string& config) {
  command
      .add_option("--fail-on", fail_on,
                  "Exit 1 when a finding reaches SEVERITY (info, low, medium, high, critical)")
      ->check(CLI::IsMember({"info", "low", "medium", "high", "critical"}));
  // One value per --set, so `--set a.b=1 trace.json` leaves trace.json an input.
  command
      .add_option("--set", overrides,
                  "Override a rule threshold: RULE.PARAM=VALUE (repeatable; docs/findings.md)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option("--config", config,
                     "File of RULE.PARAM = VALUE lines ('#' comments); --set wins");
}

Status ApplyRuleOverrides(const std::string& config, const std::vector<std::string>& overrides,
                          DiagnoseOptions& out) {
  if (!config.empty()) RETURN_IF_ERROR(out.catalog.ApplyConfigFile(config));
  for (const std::string& assignment : overrides) {
    RETURN_IF_ERROR(out.catalog.ApplyOverride(assignment));
  }
  return Status::Ok();
}

}  // namespace gpuwhy
