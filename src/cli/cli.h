// The gpuwhy command line as a library: the binary and the tests run the same code, with
// the streams passed in, so every subcommand can be tested in-process.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "base/status.h"
#include "report/terminal_style.h"

namespace gpuwhy {

// Exit codes of every subcommand (README: exit codes).
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // findings at or above --fail-on
constexpr int kExitUnusable = 2;  // unusable input or usage error

// Where a command writes and how.
struct CliContext {
  std::ostream& out;
  std::ostream& err;
  ColourMode colour = ColourMode::kOff;  // of |out|
};

// kOn when |fd| is a terminal and NO_COLOR is unset or empty (https://no-color.org).
ColourMode DetectColourMode(int fd);

// Runs `gpuwhy ARGS…` (|args| excludes the program name) and returns the exit code: 2 when
// what it printed to |context.out| could not be written.
int RunCli(const std::vector<std::string>& args, const CliContext& context);

// The binary's main: std::cout / std::cerr, colour detected from stdout.
int RunMain(int argc, char** argv);

// Prints "gpuwhy: MESSAGE" as one line on the error stream.
void PrintError(const CliContext& context, const Status& status);
void PrintError(const CliContext& context, const std::string& message);

}  // namespace gpuwhy
