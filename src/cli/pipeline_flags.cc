#include "cli/pipeline_flags.h"

#include <CLI/CLI.hpp>

#include <regex>

#include "base/file_input.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kSeverities[] = {"info", "low", "medium", "high", "critical"};

Severity ParseSeverity(std::string_view name) {
  for (size_t i = 0; i < std::size(kSeverities); ++i) {
    if (kSeverities[i] == name) return static_cast<Severity>(i);
  }
  return Severity::kCritical;  // unreachable: CLI11 checks the name
}

bool Reaches(const Diagnosis& diagnosis, Severity threshold) {
  for (const Finding& f : diagnosis.findings) {
    if (f.severity >= threshold) return true;
  }
  return false;
}

}  // namespace

void AddRuleFlags(CLI::App& command, PipelineFlags& flags) {
  // One value per --set, so `--set a.b=1 trace.json` leaves trace.json an input.
  command
      .add_option("--set", flags.overrides,
                  "Override a rule threshold: RULE.PARAM=VALUE (repeatable; docs/findings.md)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option("--config", flags.config,
                     "File of RULE.PARAM = VALUE lines ('#' comments); --set wins");
}

void AddStrictFlag(CLI::App& command, bool& strict) {
  command.add_flag("--strict", strict,
                   "Exit 2 when an input was read with data loss (cut short, events skipped); "
                   "without it such an input is analysed, and the loss is a warning and in the "
                   "report");
}

void AddTraceInputFlags(CLI::App& command, PipelineFlags& flags) {
  AddStrictFlag(command, flags.strict);
  AddStepRangeFlag(command, flags);
}

void AddStepRangeFlag(CLI::App& command, PipelineFlags& flags) {
  command
      .add_option(
          "--step-range", flags.step_range,
          "Nsight Systems exports: regex (ECMAScript, whole name) of the NVTX ranges that are "
          "training steps; default ProfilerStep#N, then step, train_step, iteration")
      ->check(CLI::Validator(
          [](const std::string& pattern) -> std::string {
            try {
              std::regex compiled(pattern, std::regex::ECMAScript);
              (void)compiled;
            } catch (const std::regex_error& e) {
              return "not a regular expression: " + pattern + " (" + e.what() + ")";
            }
            return {};
          },
          "REGEX"));
}

void AddPipelineFlags(CLI::App& command, PipelineFlags& flags) {
  AddRuleFlags(command, flags);
  AddStepRangeFlag(command, flags);
}

void AddFailOnFlag(CLI::App& command, std::string& fail_on) {
  command
      .add_option("--fail-on", fail_on,
                  "Exit 1 when a finding reaches SEVERITY (info, low, medium, high, critical)")
      ->check(CLI::IsMember({"info", "low", "medium", "high", "critical"}));
}

Status ApplyPipelineFlags(const PipelineFlags& flags, PipelineOptions& options) {
  Catalog& catalog = options.diagnose.catalog;
  if (!flags.config.empty()) {
    // Bounded and regular: --config /dev/zero, /dev/urandom or a FIFO once read without end.
    ASSIGN_OR_RETURN(std::string text, ReadSettingsFile(flags.config));
    RETURN_IF_ERROR(catalog.ApplyConfigText(text, flags.config));
  }
  for (const std::string& assignment : flags.overrides)
    RETURN_IF_ERROR(catalog.ApplyOverride(assignment));
  options.import.step_range = flags.step_range;
  return Status::Ok();
}

bool ReachesSeverity(const Report& report, std::string_view fail_on) {
  if (fail_on.empty()) return false;
  const Severity threshold = ParseSeverity(fail_on);
  for (const RankReport& rank : report.ranks) {
    if (Reaches(rank.diagnosis, threshold)) return true;
  }
  return report.job && Reaches(report.job->diagnosis, threshold);
}

}  // namespace gpuwhy
