// `gpuwhy doctor`: checks the platform under a job. On this machine it reads /proc, /sys, the
// environment, nvidia-smi and the kernel log (what it may); with --from it reads a support
// bundle (or single files) collected elsewhere. Output: platform.* findings with quoted log
// lines and the platform checklist, in the same formats as `gpuwhy analyze`. A missing GPU or
// kernel-log permission is a checklist line, not an error (exit 0); an input that fails to
// parse is named "PATH: line N: why" (exit 2) and what was read is still reported. --from
// inputs run through the same pipeline as `gpuwhy analyze`, reading node logs and metric logs
// only: every folder is a bundle, and a trace is listed as skipped.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/input_policies.h"
#include "cli/pipeline_flags.h"
#include "cli/report_output.h"
#include "collect/system_probe/system_probe.h"
#include "pipeline/node_report.h"
#include "pipeline/pipeline.h"

namespace gpuwhy {

void AddDoctorCommand(CLI::App& app, DoctorOptions& options) {
  CLI::App* command = app.add_subcommand(
      "doctor",
      "Check the platform: driver Xid errors, PCIe links, topology, NCCL transport, GPU state "
      "and environment, on this machine or from collected files (--from)");
  command
      ->add_option("--from", options.from,
                   AcceptedInputsHelp(kDoctorInputs) + ". Repeatable. Without it: this machine")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command->add_option("--format", options.format, "Output format: text, json or md")
      ->check(CLI::IsMember({"text", "json", "md"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  AddFailOnFlag(*command, options.fail_on);
  AddStrictFlag(*command, options.pipeline.strict);
  AddRuleFlags(*command, options.pipeline);
}

int RunDoctorCommand(const DoctorOptions& options, const CliContext& context) {
  PipelineOptions pipeline;
  if (Status s = ApplyPipelineFlags(options.pipeline, pipeline); !s.ok()) {
    PrintError(context, s);
    return kExitUnusable;
  }
  const InputPolicy& node_logs = kDoctorInputs;
  std::vector<std::string> read = options.from;
  read.push_back(options.pipeline.config);
  if (Status s = CheckOutputIsNotAnInput(options.output, read, node_logs); !s.ok()) {
    PrintError(context, s);
    return kExitUnusable;
  }
  Report report;
  if (options.from.empty()) {
    SystemFacts facts;
    facts.source = "this machine";
    ProbeLocalSystem(ProbeOptions{}, facts);
    report.ranks.push_back(ReportNodeFacts(facts, "doctor: this machine", pipeline.diagnose));
  } else {
    pipeline.accept = node_logs;
    pipeline.cross_rank = false;
    for (const std::string& input : options.from) {
      pipeline.node_source += (pipeline.node_source.empty() ? "doctor: " : ", ") + input;
    }
    report = RunPipeline(options.from, pipeline);
  }
  PrintFailures(report, context, options.pipeline.strict);
  return RenderAndExit(report,
                       {.format = options.format,
                        .path = options.output,
                        .fail_on = options.fail_on,
                        .strict = options.pipeline.strict},
                       context);
}

}  // namespace gpuwhy
