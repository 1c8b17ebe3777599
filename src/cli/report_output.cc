#include "cli/report_output.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "base/file_input.h"
#include "cli/pipeline_flags.h"
#include "ingest/importer.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

bool SameFile(const fs::path& path, const struct stat& target) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino;
}

// The files of a folder input the pipeline reads: its trace files, or every file when it is
// read as a bundle (pipeline/pipeline_inputs.cc decides the same way).
bool FolderHolds(const std::string& dir, const struct stat& target, const InputPolicy& policy) {
  if (policy.traces) {
    StatusOr<std::vector<std::string>> traces = ExpandInputPaths({dir});
    if (traces.ok() && !traces->empty()) {
      return std::any_of(traces->begin(), traces->end(),
                         [&](const std::string& file) { return SameFile(file, target); });
    }
  }
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && SameFile(it->path(), target)) return true;
  }
  return false;
}

}  // namespace

Status CheckOutputIsNotAnInput(const std::string& output, const std::vector<std::string>& inputs,
                               const InputPolicy& policy) {
  struct stat target;
  if (output.empty() || ::stat(output.c_str(), &target) != 0 || !S_ISREG(target.st_mode))
    return Status::Ok();
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    std::error_code ec;
    const bool found =
        fs::is_directory(input, ec) ? FolderHolds(input, target, policy) : SameFile(input, target);
    if (found) return InvalidArgument("refusing to write {}: it is an input", output);
  }
  return Status::Ok();
}

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

bool PrintDataLoss(const std::vector<ReportFailure>& lost, bool strict, const CliContext& context) {
  for (const ReportFailure& input : lost)
    PrintError(context, (strict ? "" : "warning: ") + input.message);
  return !lost.empty();
}

void PrintFailures(const Report& report, const CliContext& context, bool strict) {
  for (const ReportFailure& failure : report.failures) PrintError(context, failure.message);
  PrintDataLoss(report.data_loss, strict, context);
}

int RenderAndExit(const Report& report, const ReportOutput& output, const CliContext& context) {
  TextReportOptions text;
  text.top_n = output.top_n;
  text.detail = ParseReportDetail(output.detail).value_or(ReportDetail::kCompact);
  const bool to_file = !output.path.empty();
  text.colour = !to_file && context.colour == ColourMode::kOn ? TextColour::kOn : TextColour::kOff;
  std::string rendered = RenderReport(report, ParseReportFormat(output.format), text);
  if (!WriteOutput(rendered, output.path, context.out, context)) return kExitUnusable;
  if (!report.failures.empty()) return kExitUnusable;
  if (output.strict && !report.data_loss.empty()) return kExitUnusable;
  return ReachesSeverity(report, output.fail_on) ? kExitFindings : kExitOk;
}

}  // namespace gpuwhy
