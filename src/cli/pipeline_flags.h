// The flags that shape the pipeline, the same on every command that runs it: --set and
// --config (the rule catalog) wherever findings are made, --step-range wherever traces are
// read, and --fail-on wherever a report is the result.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "pipeline/pipeline.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gpuwhy {

struct PipelineFlags {
  std::vector<std::string> overrides;  // --set RULE.PARAM=VALUE, applied after the config file
  std::string config;                  // --config FILE of RULE.PARAM = VALUE lines
  std::string step_range;              // --step-range REGEX (Nsight Systems step ranges)
  bool strict = false;                 // --strict: data loss in an input exits 2
};

// --set and --config.
void AddRuleFlags(CLI::App& command, PipelineFlags& flags);
// --strict: an input read with data loss (cut short, events skipped) exits 2 instead of 0.
void AddStrictFlag(CLI::App& command, bool& strict);
// --step-range: a pattern that is not an ECMAScript regex is a usage error (exit 2).
void AddStepRangeFlag(CLI::App& command, PipelineFlags& flags);
// What the commands that read traces and end in their exit code take: --step-range and
// --strict (run ends in its job's exit code and has no --strict).
void AddTraceInputFlags(CLI::App& command, PipelineFlags& flags);
// --set, --config and --step-range.
void AddPipelineFlags(CLI::App& command, PipelineFlags& flags);
// --fail-on SEVERITY.
void AddFailOnFlag(CLI::App& command, std::string& fail_on);

// The config file first, then each --set in order (the command line wins), then the step
// ranges. Errors name the file and line or the bad assignment.
Status ApplyPipelineFlags(const PipelineFlags& flags, PipelineOptions& options);

// True when a finding of |report| (a rank's or the job's) reaches the --fail-on severity.
bool ReachesSeverity(const Report& report, std::string_view fail_on);

}  // namespace gpuwhy
