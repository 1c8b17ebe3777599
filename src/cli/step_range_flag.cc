#include "cli/step_range_flag.h"

#include <CLI/CLI.hpp>

#include <regex>

namespace gpuwhy {

void AddStepRangeOption(CLI::App& command, std::string& step_range) {
  command
      .add_option("--step-range", step_range,
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

}  // namespace gpuwhy
