// `gpuwhy doctor`: checks the platform under a job. On this machine it reads /proc, /sys, the
// environment, nvidia-smi and the kernel log (what it may); with --from it reads a support
// bundle (or single files) collected elsewhere. Output: platform.* findings with quoted log
// lines and the platform checklist, in the same formats as `gpuwhy analyze`. A missing GPU or
// kernel-log permission is a checklist line, not an error (exit 0); an input that fails to
// parse is named "PATH: line N: why" (exit 2) and what was read is still reported.
#include <CLI/CLI.hpp>

#include <filesystem>

#include <fmt/format.h>

#include "base/file_input.h"
#include "cli/commands.h"
#include "cli/diagnosis_flags.h"
#include "cli/doctor_report.h"
#include "collect/system_probe/system_probe.h"
#include "diagnose/diagnose_platform.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// One --from input: a bundle directory (plus its proc/ and sys/ trees) or one file.
void ReadFrom(const std::string& input, SystemFacts& facts, std::vector<ReportFailure>& failures,
              std::vector<std::string>& unrecognised) {
  std::error_code ec;
  if (fs::is_directory(input, ec)) {
    BundleReadResult read = ReadSupportBundle(input, facts);
    for (const BundleFailure& f : read.failures) failures.push_back({f.path, f.message});
    unrecognised.insert(unrecognised.end(), read.unrecognised.begin(), read.unrecognised.end());
    if (fs::is_directory(fs::path(input) / "proc", ec) || fs::is_directory(fs::path(input) / "sys", ec)) {
      ProbeOptions probe;
      probe.root = input;
      probe.read_environment = false;
      probe.run_commands = false;
      ProbeHostFiles(probe, facts);
    }
    return;
  }
  if (!fs::exists(input, ec)) {
    failures.push_back({input, input + ": no such file or directory"});
    return;
  }
  Status status = ReadSystemFile(input, facts);
  if (status.ok()) return;
  if (status.code() == StatusCode::kNotFound) {
    unrecognised.push_back(input);
  } else {
    failures.push_back({input, status.message()});
  }
}

}  // namespace

void AddDoctorCommand(CLI::App& app, DoctorOptions& options) {
  CLI::App* command = app.add_subcommand(
      "doctor",
      "Check the platform: driver Xid errors, PCIe links, topology, NCCL transport, GPU state "
      "and environment, on this machine or from collected files (--from)");
  command
      ->add_option("--from", options.from,
                   "A support bundle directory or files (dmesg, lspci -vvv, nvidia-smi -q/-q -x, "
                   "topo -m, NCCL logs, ibstat, env); repeatable. Without it: this machine")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command->add_option("--format", options.format, "Output format: text, json or md")
      ->check(CLI::IsMember({"text", "json", "md"}));
  command->add_option("-o,--output", options.output, "Write to FILE instead of stdout");
  AddDiagnosisFlags(*command, options.fail_on, options.overrides, options.config);
}

int RunDoctorCommand(const DoctorOptions& options, const CliContext& context) {
  DiagnoseOptions diagnose_options;
  if (Status s = ApplyRuleOverrides(options.config, options.overrides, diagnose_options); !s.ok()) {
    PrintError(context, s);
    return kExitUnusable;
  }
  SystemFacts facts;
  std::vector<ReportFailure> failures;
  std::vector<std::string> unrecognised;
  std::string source;
  if (options.from.empty()) {
    source = "doctor: this machine";
    facts.source = "this machine";
    ProbeLocalSystem(ProbeOptions{}, facts);
  } else {
    for (const std::string& input : options.from) {
      ReadFrom(input, facts, failures, unrecognised);
      source += (source.empty() ? "doctor: " : ", ") + input;
    }
    facts.source = source;
  }
  for (const ReportFailure& f : failures) PrintError(context, f.message);
  RankReport report = DoctorReport(facts, source, diagnose_options);
  for (const std::string& file : unrecognised) {
    report.diagnosis.notes.push_back(file + ": not a recognised log or command output, skipped");
  }
  std::vector<RankReport> ranks;
  ranks.push_back(std::move(report));
  return RenderAndExit(ranks, failures, options.format, options.output, options.fail_on, context);
}

}  // namespace gpuwhy
