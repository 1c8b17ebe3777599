// `gpuwhy info TRACE…|DIR`: what each trace holds, before any analysis.
#include <CLI/CLI.hpp>

#include <ostream>

#include "cli/commands.h"
#include "cli/input_policies.h"
#include "cli/pipeline_flags.h"
#include "cli/report_output.h"
#include "ingest/importer.h"
#include "ingest/memory/memory_timeline_importer.h"
#include "ingest/memory/snapshot_importer.h"
#include "ingest/ncu/ncu_csv_importer.h"
#include "pipeline/info_summary.h"
#include "pipeline/pipeline_inputs.h"
#include "report/info_render.h"

namespace gpuwhy {

void AddInfoCommand(CLI::App& app, InfoOptions& options) {
  CLI::App* command =
      app.add_subcommand("info",
                         "Describe traces and allocator memory snapshots: format, size, rank, "
                         "devices, span, steps, event counts, import problems");
  command->add_option("inputs", options.inputs, AcceptedInputsHelp(kTraceInputs))->required();
  command->add_option("--format", options.format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  AddTraceInputFlags(*command, options.pipeline);
}

int RunInfoCommand(const InfoOptions& options, const CliContext& context) {
  if (Status status = CheckOutputIsNotAnInput(options.output, options.inputs); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  std::vector<InfoSummary> summaries;
  std::vector<MemoryInfoSummary> memory;
  std::vector<KernelProfileSummary> profiles;
  std::vector<InfoFailure> failures;
  const auto fail = [&](const std::string& path, const Status& status) {
    PrintError(context, status);
    failures.push_back({path, status.message()});
  };
  // The pipeline's own input table and importers (pipeline/pipeline_inputs.h): info reads
  // traces only, and names what any other input is. One bad path does not hide the others.
  const InputPolicy& traces_only = kTraceInputs;
  const ImportOptions import{options.pipeline.step_range};
  // A cut file still shows what it holds; its loss is a warning (an error under --strict).
  const auto note_loss = [&](const std::string& path, const DataProblems& problems) {
    Status lost = DataLossStatus(path, problems);
    if (lost.ok()) return;
    if (options.pipeline.strict) {
      fail(path, lost);
    } else {
      PrintDataLoss({{path, lost.message()}}, false, context);
    }
  };
  for (const PlannedInput& input : PlanInputs(options.inputs, traces_only)) {
    if (input.role == InputRole::kMemorySnapshot &&
        input.input.kind == InputKind::kMemoryTimeline) {
      StatusOr<MemoryTimeline> timeline = ImportMemoryTimeline(input.path);
      if (!timeline.ok()) {
        fail(input.path, timeline.status());
        continue;
      }
      note_loss(input.path, timeline->problems);
      memory.push_back(ComputeMemoryInfo(*timeline));
      continue;
    }
    if (input.role == InputRole::kMemorySnapshot && input.input.kind != InputKind::kPythonPickle) {
      const std::string why = input.path + ": " + DescribeInput(input.input) +
                              ": gpuwhy analyze reads it; info describes traces, snapshots and "
                              "memory timelines";
      PrintError(context, why);
      failures.push_back({input.path, why});
      continue;
    }
    if (input.role == InputRole::kMemorySnapshot) {
      StatusOr<MemorySnapshot> snapshot = ImportMemorySnapshot(input.path);
      if (!snapshot.ok()) {
        fail(input.path, snapshot.status());
        continue;
      }
      note_loss(input.path, snapshot->problems);
      memory.push_back(ComputeMemoryInfo(*snapshot));
      continue;
    }
    if (input.role == InputRole::kKernelProfile) {
      StatusOr<KernelProfile> profile = ImportNcuCsv(input.path);
      if (!profile.ok()) {
        fail(input.path, profile.status());
        continue;
      }
      if (Status lost = DataLossStatus(input.path, profile->problems); !lost.ok()) {
        if (options.pipeline.strict) {
          fail(input.path, lost);
        } else {
          PrintDataLoss({{input.path, lost.message()}}, false, context);
        }
      }
      profiles.push_back(ComputeKernelProfileSummary(*profile));
      continue;
    }
    if (input.role != InputRole::kTrace) {
      PrintError(context, input.error);
      failures.push_back({input.path, input.error});
      continue;
    }
    // An Nsight Systems export holds one trace per profiled process.
    StatusOr<std::vector<Trace>> traces = ImportTraceFiles(input.path, input.input, import);
    if (!traces.ok()) {
      fail(input.path, traces.status());
      continue;
    }
    for (const Trace& trace : *traces) {
      note_loss(input.path, trace.problems);
      summaries.push_back(ComputeInfoSummary(trace));
    }
  }
  const bool to_file = !options.output.empty();
  std::string rendered =
      options.format == "json"
          ? RenderInfoJson(summaries, failures, memory, profiles)
          : RenderInfoText(summaries, to_file ? ColourMode::kOff : context.colour, memory,
                           profiles);
  if (!WriteOutput(rendered, options.output, context.out, context)) return kExitUnusable;
  return failures.empty() ? kExitOk : kExitUnusable;
}

}  // namespace gpuwhy
