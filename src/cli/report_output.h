// The tail every report command shares: print the inputs that failed, render the Report in
// --format, write it to -o or a stream, and turn the outcome into the exit code.
#pragma once

#include <iosfwd>
#include <string>

#include "cli/cli.h"
#include "pipeline/report_model.h"
#include "report/report.h"

namespace gpuwhy {

// Writes |rendered| to |path| or, when |path| is empty, to |out|; false (after printing the
// error) when the file cannot be written.
bool WriteOutput(const std::string& rendered, const std::string& path, std::ostream& out,
                 const CliContext& context);

// Prints "gpuwhy: PATH: why" for every failed input, in report order.
void PrintFailures(const Report& report, const CliContext& context);

struct ReportOutput {
  std::string format = "text";  // text | json | md | html
  std::string path;             // empty: |stream|
  size_t top_n = 10;
  std::string fail_on;  // empty: no gate
};

// Renders |report| to |output| (or context.out; colour only on a terminal) and returns the exit
// code: 2 when an input failed or the output cannot be written, 1 when a finding reaches
// --fail-on, else 0. Failures are not printed here (PrintFailures).
int RenderAndExit(const Report& report, const ReportOutput& output, const CliContext& context);

}  // namespace gpuwhy
