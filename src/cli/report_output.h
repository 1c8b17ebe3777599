// The tail every report command shares: print the inputs that failed, render the Report in
// --format, write it to -o or a stream, and turn the outcome into the exit code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "pipeline/pipeline_inputs.h"
#include "pipeline/report_model.h"
#include "report/report.h"

namespace gpuwhy {

// Refuses to write |output| when it is one of |inputs|: the same file by inode (through another
// path, a hard link or a symlink), or a file the command reads inside an input folder (its
// trace files, or every file of a folder read as a support bundle, as |policy| says). One line,
// "refusing to write PATH: it is an input"; Ok for stdout (empty), a file that does not exist
// yet, or one that is not a regular file (/dev/null). Every command that writes calls it before
// it reads anything.
Status CheckOutputIsNotAnInput(const std::string& output, const std::vector<std::string>& inputs,
                               const InputPolicy& policy = {});

// Writes |rendered| to |path| or, when |path| is empty, to |out|; false (after printing the
// error) when the file cannot be written.
bool WriteOutput(const std::string& rendered, const std::string& path, std::ostream& out,
                 const CliContext& context);

// Prints one line per input read with data loss, "gpuwhy: warning: PATH: what was lost"
// ("gpuwhy: PATH: ..." under --strict, where it is an error); true when there was one.
bool PrintDataLoss(const std::vector<ReportFailure>& lost, bool strict, const CliContext& context);

// Prints "gpuwhy: PATH: why" for every failed input, in report order, then the data loss.
void PrintFailures(const Report& report, const CliContext& context, bool strict);

struct ReportOutput {
  std::string format = "text";  // text | json | md | html
  std::string path;             // empty: |stream|
  size_t top_n = 10;
  std::string fail_on;             // empty: no gate
  std::string detail = "compact";  // Markdown of several ranks: compact | full
  bool strict = false;             // --strict: data loss exits 2
};

// Renders |report| to |output| (or context.out; colour only on a terminal) and returns the exit
// code: 2 when an input failed, the output cannot be written or (--strict) an input lost
// data, 1 when a finding reaches --fail-on, else 0. Failures are not printed here (PrintFailures).
int RenderAndExit(const Report& report, const ReportOutput& output, const CliContext& context);

}  // namespace gpuwhy
