#include "cli/report_output.h"

#include <ostream>

#include "base/file_input.h"
#include "cli/pipeline_flags.h"

namespace gpuwhy {

bool WriteOutput(const std::string& rendered, const std::string& path, std::ostream& out,
                 const CliContext& context) {
  if (path.empty()) {
    out << rendered << std::flush;
    return true;
  }
  if (Status status = WriteWholeFile(path, rendered); !status.ok()) {
    PrintError(context, status);
    return false;
  }
  return true;
}

void PrintFailures(const Report& report, const CliContext& context) {
  for (const ReportFailure& failure : report.failures) PrintError(context, failure.message);
}

int RenderAndExit(const Report& report, const ReportOutput& output, const CliContext& context) {
  TextReportOptions text;
  text.top_n = output.top_n;
  const bool to_file = !output.path.empty();
  text.colour = !to_file && context.colour == ColourMode::kOn ? TextColour::kOn : TextColour::kOff;
  std::string rendered = RenderReport(report, ParseReportFormat(output.format), text);
  if (!WriteOutput(rendered, output.path, context.out, context)) return kExitUnusable;
  if (!report.failures.empty()) return kExitUnusable;
  return ReachesSeverity(report, output.fail_on) ? kExitFindings : kExitOk;
}

}  // namespace gpuwhy
