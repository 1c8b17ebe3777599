#include "cli/cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "base/text_escape.h"
#include "cli/cli_help.h"
#include "cli/commands.h"
#include "cli/end_of_options.h"

#ifndef GPUWHY_VERSION
#define GPUWHY_VERSION "unknown"
#endif

namespace gpuwhy {

void PrintError(const CliContext& context, const std::string& message) {
  // Messages quote file names and file content: nothing in them may drive the terminal.
  context.err << "gpuwhy: " << text::EscapeControl(message) << '\n' << std::flush;
}

void PrintError(const CliContext& context, const Status& status) {
  PrintError(context, status.message());
}

namespace {

int RunCommand(const std::vector<std::string>& args, const CliContext& context) {
  CLI::App app("gpuwhy: finds why the GPUs of a training job sit underused.", "gpuwhy");
  // One version line for `-V`, `--version` and `gpuwhy version`.
  app.set_version_flag("-V,--version", std::string("gpuwhy ") + GPUWHY_VERSION);
  app.require_subcommand(1);
  InfoOptions info;
  SynthCommandOptions synth;
  DemoOptions demo;
  AnalyzeOptions analyze;
  DoctorOptions doctor;
  AddAnalyzeCommand(app, analyze);
  AddInfoCommand(app, info);
  AddSynthCommand(app, synth);
  AddDemoCommand(app, demo);
  ServeOptions serve;
  AddServeCommand(app, serve);
  DiffCommandOptions diff;
  AddDiffCommand(app, diff);
  AnnotateOptions annotate;
  AddAnnotateCommand(app, annotate);
  AddDoctorCommand(app, doctor);
  RunOptions run;
  AddRunCommand(app, run);
  RecordOptions record;
  AddRecordCommand(app, record);
  ExportCsvOptions export_csv;
  AddExportCsvCommand(app, export_csv);
  WatchOptions watch;
  AddWatchCommand(app, watch);
  McpOptions mcp;
  AddMcpCommand(app, mcp);
  // Help about the commands above, generated from them (cli_help.h).
  std::string help_topic;
  app.add_subcommand("help", "Print the help of COMMAND (or of gpuwhy)")
      ->add_option("command", help_topic, "A command");
  std::string shell;
  app.add_subcommand("completion", "Print the shell completion script: bash, zsh or fish")
      ->add_option("shell", shell, "bash, zsh or fish")
      ->required();
  app.add_subcommand("version", "Print gpuwhy's version");
  app.add_subcommand("man", "Print the man page gpuwhy.1 (roff)")->group("");
  UnescapeOptionValues(app);
  try {
    // CLI11 consumes a vector from the back.
    std::vector<std::string> escaped = EscapeArgumentsAfterDoubleDash(args);
    std::vector<std::string> reversed(escaped.rbegin(), escaped.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e, context.out, context.err);  // --help, --version
      return kExitOk;
    }
    PrintError(context, fmt::format("{}{} (see gpuwhy --help)", UnescapeMessage(e.what()),
                                    DidYouMean(app, args)));
    return kExitUnusable;
  }
  if (app.got_subcommand("version")) {
    context.out << "gpuwhy " << GPUWHY_VERSION << '\n';
    return kExitOk;
  }
  if (app.got_subcommand("help")) {
    if (help_topic.empty()) {
      context.out << app.help();
      return kExitOk;
    }
    for (const CLI::App* command : VisibleCommands(app)) {
      if (command->get_name() != help_topic) continue;
      context.out << command->help("gpuwhy");  // "Usage: gpuwhy diff", as `diff --help` says
      return kExitOk;
    }
    PrintError(context, fmt::format("help: no command '{}'{} (see gpuwhy --help)", help_topic,
                                    DidYouMean(app, {help_topic})));
    return kExitUnusable;
  }
  if (app.got_subcommand("completion")) {
    StatusOr<std::string> script = CompletionScript(app, shell);
    if (!script.ok()) {
      PrintError(context, script.status());
      return kExitUnusable;
    }
    context.out << *script;
    return kExitOk;
  }
  if (app.got_subcommand("man")) {
    context.out << ManPage(app, GPUWHY_VERSION);
    return kExitOk;
  }
  if (app.got_subcommand("analyze")) return RunAnalyzeCommand(analyze, context);
  if (app.got_subcommand("info")) return RunInfoCommand(info, context);
  if (app.got_subcommand("synth")) return RunSynthCommand(synth, context);
  if (app.got_subcommand("demo")) return RunDemoCommand(demo, context);
  if (app.got_subcommand("serve")) return RunServeCommand(serve, context);
  if (app.got_subcommand("diff")) return RunDiffCommand(diff, context);
  if (app.got_subcommand("annotate")) return RunAnnotateCommand(annotate, context);
  if (app.got_subcommand("doctor")) return RunDoctorCommand(doctor, context);
  if (app.got_subcommand("run")) return RunRunCommand(run, context);
  if (app.got_subcommand("record")) return RunRecordCommand(record, context);
  if (app.got_subcommand("export-csv")) return RunExportCsvCommand(export_csv, context);
  if (app.got_subcommand("watch")) return RunWatchCommand(watch, context);
  if (app.got_subcommand("mcp")) return RunMcpCommand(mcp, context);
  PrintError(context, "no command given (see gpuwhy --help)");
  return kExitUnusable;
}

}  // namespace

int RunCli(const std::vector<std::string>& args, const CliContext& context) {
  const int code = RunCommand(args, context);
  // What the command printed must have arrived: a report lost to a full disk (>/dev/full) is
  // a failure, whatever the command found.
  errno = 0;
  context.out.flush();
  if (!context.out.fail()) return code;
  const int error = errno;
  PrintError(context, error != 0
                          ? fmt::format("standard output: write failed: {}", std::strerror(error))
                          : std::string("standard output: write failed"));
  return kExitUnusable;
}

ColourMode DetectColourMode(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && no_colour[0] != '\0') return ColourMode::kOff;
  return ::isatty(fd) == 1 ? ColourMode::kOn : ColourMode::kOff;
}

int RunMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CliContext context{std::cout, std::cerr, DetectColourMode(STDOUT_FILENO)};
  // The last line of defence: nothing may escape as an uncaught exception (e.g. bad_alloc).
  try {
    return RunCli(args, context);
  } catch (const std::exception& e) {
    PrintError(context, fmt::format("internal error: {}", e.what()));
    return kExitUnusable;
  }
}

}  // namespace gpuwhy
