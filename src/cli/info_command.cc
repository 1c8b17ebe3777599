// `gpuwhy info TRACE…|DIR`: what each trace holds, before any analysis.
#include <CLI/CLI.hpp>

#include <ostream>

#include "base/file_input.h"
#include "cli/commands.h"
#include "cli/info_render.h"
#include "cli/info_summary.h"
#include "cli/step_range_flag.h"
#include "ingest/importer.h"

namespace gpuwhy {

void AddInfoCommand(CLI::App& app, InfoOptions& options) {
  CLI::App* command =
      app.add_subcommand("info",
                         "Describe traces: format, size, rank, devices, span, steps, event counts, "
                         "import problems");
  command->add_option("inputs", options.inputs,
                      "Trace files (.json, .json.gz, Nsight Systems .sqlite) or directories")
      ->required();
  command->add_option("--format", options.format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  AddStepRangeOption(*command, options.step_range);
}

int RunInfoCommand(const InfoOptions& options, const CliContext& context) {
  std::vector<InfoSummary> summaries;
  std::vector<InfoFailure> failures;
  const auto fail = [&](const std::string& path, const Status& status) {
    PrintError(context, status);
    failures.push_back({path, status.message()});
  };
  // One input at a time, so one bad path does not hide the others.
  for (const std::string& input : options.inputs) {
    StatusOr<std::vector<std::string>> files = ExpandInputPaths({input});
    if (!files.ok()) {
      fail(input, files.status());
      continue;
    }
    for (const std::string& file : *files) {
      // An Nsight Systems export holds one trace per profiled process.
      StatusOr<std::vector<Trace>> traces = ImportTraceFiles(file, ImportOptions{options.step_range});
      if (!traces.ok()) {
        fail(file, traces.status());
        continue;
      }
      for (const Trace& trace : *traces) {
        // A cut file still shows what it holds, but the run must not look clean.
        if (Status partial = PartialInputStatus(trace); !partial.ok()) fail(file, partial);
        summaries.push_back(ComputeInfoSummary(trace));
      }
    }
  }
  const bool to_file = !options.output.empty();
  std::string rendered =
      options.format == "json"
          ? RenderInfoJson(summaries, failures)
          : RenderInfoText(summaries, to_file ? ColourMode::kOff : context.colour);
  if (to_file) {
    if (Status status = WriteWholeFile(options.output, rendered); !status.ok()) {
      PrintError(context, status);
      return kExitUnusable;
    }
  } else {
    context.out << rendered << std::flush;
  }
  return failures.empty() ? kExitOk : kExitUnusable;
}

}  // namespace gpuwhy
