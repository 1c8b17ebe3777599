// `gpuwhy synth`: writes a synthetic Kineto trace with a known, injected bottleneck.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <ostream>

#include "cli/commands.h"
#include "report/info_render.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace {

void PrintScenarios(const CliContext& context) {
  // Names are never cut (scripts read them back): the column fits the longest.
  size_t name_width = 0;
  for (const std::string& name : ScenarioNames()) name_width = std::max(name_width, name.size());
  const size_t name_column = name_width + 2;
  for (const std::string& name : ScenarioNames()) {
    const char* description = ScenarioDescription(name);
    std::vector<std::string> lines =
        WrapText(description ? description : "", kReportWidth - name_column);
    if (lines.empty()) lines.emplace_back();
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string line = fmt::format("{:<{}}{}", i == 0 ? name : "", name_column, lines[i]);
      context.out << line << '\n';
    }
  }
  context.out << std::flush;
}

}  // namespace

void AddSynthCommand(CLI::App& app, SynthCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "synth", "Write a synthetic Kineto trace with a known bottleneck (and its ground truth)");
  command->add_flag("--list", options.list, "List the scenarios and exit");
  command->add_option("--scenario", options.scenario, "Scenario name (see --list)")
      ->check(CLI::IsMember(ScenarioNames()));
  command->add_option("--steps", options.steps, "Training steps to write")
      ->check(CLI::Range(1, 1000000));
  command->add_option("--ranks", options.ranks, "Ranks (one trace file each)")
      ->check(CLI::Range(1, 4096));
  command
      ->add_option("--size-mb", options.size_mb,
                   "Grow or shrink the step count until each file holds about M MB")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  command->add_option("--seed", options.seed, "Random seed (output is deterministic per seed)");
  command
      ->add_option(
          "--format", options.format,
          "kineto (PyTorch profiler JSON) or nsys-sqlite (an Nsight Systems SQLite export, "
          "docs/nsys.md)")
      ->check(CLI::IsMember({"kineto", "nsys-sqlite"}));
  command->add_flag("--gpu-metrics", options.gpu_metrics,
                    "With --format nsys-sqlite: also write GPU_METRICS sampled from the kernels, "
                    "as nsys profile --gpu-metrics-devices=all records them");
  command
      ->add_option("--slow-rank", options.slow_rank,
                   "Make rank R a straggler: its compute kernels run --slow-by PCT % longer and "
                   "the ranks' collectives wait for it (clocks get known offsets)")
      ->check(CLI::Range(0, 4095));
  command
      ->add_option("--slow-by", options.slow_by_pct,
                   "How much slower the --slow-rank computes, in %")
      ->check(CLI::Range(0.0, 1000.0));
  command->add_option(
      "-o,--output", options.output,
      "Trace file to write (.json, .json.gz or .sqlite); truth goes to FILE.truth.json");
}

int RunSynthCommand(const SynthCommandOptions& options, const CliContext& context) {
  if (options.list) {
    PrintScenarios(context);
    return kExitOk;
  }
  if (options.scenario.empty() || options.output.empty()) {
    PrintError(context, "synth: --scenario and -o FILE are required (or --list)");
    return kExitUnusable;
  }
  if (ScenarioDescription(options.scenario) == nullptr) {
    PrintError(context, fmt::format("synth: unknown scenario '{}' (see gpuwhy synth --list)",
                                    options.scenario));
    return kExitUnusable;
  }
  SynthOptions synth;
  synth.scenario = options.scenario;
  synth.steps = options.steps;
  synth.ranks = options.ranks;
  synth.size_mb = options.size_mb;
  synth.seed = options.seed;
  synth.format = options.format == "nsys-sqlite" ? SynthFormat::kNsysSqlite : SynthFormat::kKineto;
  synth.slow_rank = options.slow_rank;
  if (options.gpu_metrics && synth.format != SynthFormat::kNsysSqlite) {
    PrintError(context, "synth: --gpu-metrics needs --format nsys-sqlite");
    return kExitUnusable;
  }
  synth.gpu_metrics = options.gpu_metrics;
  synth.slow_by_pct = options.slow_rank >= 0 && options.slow_by_pct == 0 ? 20 : options.slow_by_pct;
  SynthSummary summary;
  if (Status status = WriteSyntheticTrace(synth, options.output, &summary); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  for (const std::string& path : summary.trace_paths) context.out << "wrote " << path << '\n';
  if (synth.format == SynthFormat::kNsysSqlite) {
    context.out << fmt::format("{} steps; ground truth in {}\n", summary.steps, summary.truth_path)
                << std::flush;
    return kExitOk;
  }
  context.out << fmt::format("{} steps, {} of JSON; ground truth in {}\n", summary.steps,
                             FormatBytes(summary.json_bytes), summary.truth_path)
              << std::flush;
  return kExitOk;
}

}  // namespace gpuwhy
