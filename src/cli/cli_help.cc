#include "cli/cli_help.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>

namespace gpuwhy {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The closest of |candidates| to |word| when close enough to be a typo (a third of its
// letters at most, and at least one), else empty.
std::string Closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d > 0 && d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string> LongFlags(const CLI::App& command) {
  std::vector<std::string> flags;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
    for (const std::string& name : option->get_snames()) flags.push_back("-" + name);
  }
  return flags;
}

std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : VisibleCommands(app)) names.push_back(command->get_name());
  return names;
}

std::string RoffEscape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (line_start && (c == '.' || c == '\'')) {
      out += "\\&";
      out += c;
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// What a value of |option| of |command| is, for the completions: a choice among the names
// its check lists (CLI::IsMember), a number (nothing to offer), a gpuwhy command (help), a
// shell (completion), a program (run's command), a folder (--*-dir) or, else, a file.
enum class ValueKind { kFlag, kChoice, kNumber, kProgram, kDirectory, kFile };
struct ValueCompletion {
  ValueKind kind = ValueKind::kFile;
  std::vector<std::string> choices;
};

const std::vector<std::string> kShells = {"bash", "zsh", "fish"};

ValueCompletion CompletionOf(const CLI::App& app, const CLI::App& command,
                             const CLI::Option& option) {
  if (option.get_expected_max() == 0) return {ValueKind::kFlag, {}};
  const std::string type = option.get_type_name();
  if (size_t open = type.find('{'); open != std::string::npos) {
    std::string list = type.substr(open + 1, type.find('}', open) - open - 1);
    std::vector<std::string> choices;
    for (size_t at = 0; at <= list.size();) {
      size_t comma = std::min(list.find(',', at), list.size());
      if (comma > at) choices.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
    return {ValueKind::kChoice, choices};
  }
  if (type.starts_with("INT") || type.starts_with("UINT") || type.starts_with("FLOAT") ||
      type.starts_with("NUMBER")) {
    return {ValueKind::kNumber, {}};
  }
  if (option.get_positional()) {
    if (command.get_name() == "help") return {ValueKind::kChoice, CommandNames(app)};
    if (command.get_name() == "completion") return {ValueKind::kChoice, kShells};
    if (option.get_name() == "command") return {ValueKind::kProgram, {}};
  }
  if (option.get_name().ends_with("-dir")) return {ValueKind::kDirectory, {}};
  return {ValueKind::kFile, {}};
}

// The positional argument of |command| (nullptr when it takes none).
const CLI::Option* Positional(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional()) return option;
  }
  return nullptr;
}

std::vector<std::string> Names(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const std::string& name : option.get_lnames()) names.push_back("--" + name);
  for (const std::string& name : option.get_snames()) names.push_back("-" + name);
  return names;
}

// The bash reply for a value of kind |v| ("" leaves nothing to offer).
std::string BashReply(const ValueCompletion& v) {
  switch (v.kind) {
    case ValueKind::kChoice:
      return fmt::format("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))", Join(v.choices));
    case ValueKind::kProgram: return "COMPREPLY=($(compgen -c -- \"$cur\"))";
    case ValueKind::kDirectory: return "COMPREPLY=($(compgen -d -- \"$cur\"))";
    case ValueKind::kFile: return "COMPREPLY=($(compgen -f -- \"$cur\"))";
    case ValueKind::kFlag:
    case ValueKind::kNumber: break;
  }
  return "COMPREPLY=()";
}

std::string BashCompletion(const CLI::App& app) {
  std::vector<const CLI::App*> commands = VisibleCommands(app);
  std::string out;
  out += "# bash completion for gpuwhy (generated by: gpuwhy completion bash)\n";
  out += "_gpuwhy() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  out += "  local cmd=${COMP_WORDS[1]} i\n";
  out += "  if [[ $COMP_CWORD -eq 1 ]]; then\n";
  out += fmt::format("    COMPREPLY=($(compgen -W \"{} --help --version\" -- \"$cur\"))\n",
                     Join(CommandNames(app)));
  out += "    return\n  fi\n";
  out += "  # --flag=value: bash splits at '='\n";
  out += "  if [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n";
  out += "  [[ $cur == = ]] && cur=\"\"\n";
  out += "  # after --: run's command, then that command's own arguments (files)\n";
  out += "  for ((i = 2; i < COMP_CWORD; i++)); do\n";
  out += "    if [[ ${COMP_WORDS[i]} == -- ]]; then\n";
  out += "      if ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- \"$cur\"));\n";
  out += "      else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n";
  out += "      return\n    fi\n  done\n";
  out += "  # the value of the option before\n  case \"$cmd $prev\" in\n";
  for (const CLI::App* c : commands) {
    for (const CLI::Option* option : c->get_options()) {
      if (option->get_positional()) continue;
      ValueCompletion v = CompletionOf(app, *c, *option);
      if (v.kind == ValueKind::kFlag) continue;
      std::string patterns;
      for (const std::string& name : Names(*option)) {
        patterns += (patterns.empty() ? "" : "|") + fmt::format("\"{} {}\"", c->get_name(), name);
      }
      out += fmt::format("    {}) {}; return ;;\n", patterns, BashReply(v));
    }
  }
  out += "  esac\n  if [[ $cur == -* ]]; then\n    case $cmd in\n";
  for (const CLI::App* c : commands) {
    out += fmt::format("      {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")) ;;\n", c->get_name(),
                       Join(LongFlags(*c)));
  }
  out += "    esac\n    return\n  fi\n  # the command's own arguments\n  case $cmd in\n";
  for (const CLI::App* c : commands) {
    const CLI::Option* positional = Positional(*c);
    out += fmt::format(
        "    {}) {} ;;\n", c->get_name(),
        positional == nullptr ? "COMPREPLY=()" : BashReply(CompletionOf(app, *c, *positional)));
  }
  out += "  esac\n}\ncomplete -o filenames -F _gpuwhy gpuwhy\n";
  return out;
}

// Single quotes cannot be escaped inside zsh and fish single-quoted words: they become spaces.
std::string Unquoted(std::string text, size_t max = std::string::npos) {
  text = text.substr(0, max);
  std::replace(text.begin(), text.end(), '\'', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  for (char bad : {'[', ']', ':'}) std::replace(text.begin(), text.end(), bad, ' ');
  return text;
}

// The zsh _arguments action of a value.
std::string ZshAction(const ValueCompletion& v) {
  switch (v.kind) {
    case ValueKind::kChoice: return "(" + Join(v.choices) + ")";
    case ValueKind::kProgram: return "_command_names -e";
    case ValueKind::kDirectory: return "_files -/";
    case ValueKind::kFile: return "_files";
    case ValueKind::kFlag:
    case ValueKind::kNumber: break;
  }
  return " ";
}

std::string ZshCompletion(const CLI::App& app) {
  std::vector<const CLI::App*> commands = VisibleCommands(app);
  std::string out;
  out += "#compdef gpuwhy\n# zsh completion for gpuwhy (generated by: gpuwhy completion zsh)\n";
  out += "_gpuwhy() {\n  local -a commands\n  commands=(\n";
  for (const CLI::App* c : commands) {
    std::string description = c->get_description().substr(0, c->get_description().find(':'));
    out += fmt::format("    '{}:{}'\n", c->get_name(), Unquoted(description));
  }
  out += "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n";
  out += "  case ${words[2]} in\n";
  for (const CLI::App* c : commands) {
    std::string specs;
    for (const CLI::Option* option : c->get_options()) {
      if (option->get_positional()) continue;
      ValueCompletion v = CompletionOf(app, *c, *option);
      std::string help = Unquoted(option->get_description(), 60);
      for (const std::string& name : Names(*option)) {
        specs += v.kind == ValueKind::kFlag
                     ? fmt::format("'{}[{}]' ", name, help)
                     : fmt::format("'{}[{}]:value:{}' ", name, help, ZshAction(v));
      }
    }
    if (const CLI::Option* positional = Positional(*c)) {
      ValueCompletion v = CompletionOf(app, *c, *positional);
      specs += v.kind == ValueKind::kProgram
                   ? "'*::command:_normal'"
                   : fmt::format("'*:{}:{}'", positional->get_name(), ZshAction(v));
    }
    out += fmt::format("    {}) _arguments -s {} ;;\n", c->get_name(), specs);
  }
  out += "  esac\n}\n_gpuwhy \"$@\"\n";
  return out;
}

// The fish arguments that complete a value (-r: the option takes one).
std::string FishValue(const ValueCompletion& v) {
  switch (v.kind) {
    case ValueKind::kChoice: return fmt::format(" -x -a '{}'", Join(v.choices));
    case ValueKind::kProgram: return " -x -a '(__fish_complete_command)'";
    case ValueKind::kDirectory: return " -x -a '(__fish_complete_directories)'";
    case ValueKind::kFile: return " -r -F";
    case ValueKind::kNumber: return " -x";
    case ValueKind::kFlag: break;
  }
  return "";
}

std::string FishCompletion(const CLI::App& app) {
  std::string out;
  out += "# fish completion for gpuwhy (generated by: gpuwhy completion fish)\n";
  out += fmt::format("complete -c gpuwhy -n '__fish_use_subcommand' -f -a '{}'\n",
                     Join(CommandNames(app)));
  for (const CLI::App* c : VisibleCommands(app)) {
    const std::string when = fmt::format("-n '__fish_seen_subcommand_from {}'", c->get_name());
    for (const CLI::Option* option : c->get_options()) {
      if (option->get_positional()) continue;
      std::string value = FishValue(CompletionOf(app, *c, *option));
      std::string help = Unquoted(option->get_description(), 60);
      for (const std::string& name : option->get_lnames()) {
        out += fmt::format("complete -c gpuwhy {} -l {} -d '{}'{}\n", when, name, help, value);
      }
      for (const std::string& name : option->get_snames()) {
        out += fmt::format("complete -c gpuwhy {} -s {} -d '{}'{}\n", when, name, help, value);
      }
    }
    const CLI::Option* positional = Positional(*c);
    if (positional == nullptr) {
      out += fmt::format("complete -c gpuwhy {} -f\n", when);
      continue;
    }
    ValueCompletion v = CompletionOf(app, *c, *positional);
    if (v.kind == ValueKind::kChoice || v.kind == ValueKind::kProgram) {
      out += fmt::format("complete -c gpuwhy {}{}\n", when, FishValue(v));
    }
  }
  return out;
}

}  // namespace

std::vector<const CLI::App*> VisibleCommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* command) { return !command->get_group().empty(); });
}

std::string DidYouMean(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty()) return "";
  std::vector<std::string> names = CommandNames(app);
  const std::string& first = args.front();
  if (first.empty() || first[0] == '-') return "";
  const CLI::App* command = nullptr;
  for (const CLI::App* c : VisibleCommands(app)) {
    if (c->get_name() == first) command = c;
  }
  if (command == nullptr) {
    std::string near = Closest(first, names);
    return near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near);
  }
  std::vector<std::string> flags = LongFlags(*command);
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    std::string word = args[i].substr(0, args[i].find('='));
    if (word.size() < 2 || word[0] != '-' ||
        std::find(flags.begin(), flags.end(), word) != flags.end())
      continue;
    std::string near = Closest(word, flags);
    if (!near.empty()) return fmt::format(" (did you mean '{}'?)", near);
  }
  return "";
}

StatusOr<std::string> CompletionScript(const CLI::App& app, std::string_view shell) {
  if (shell == "bash") return BashCompletion(app);
  if (shell == "zsh") return ZshCompletion(app);
  if (shell == "fish") return FishCompletion(app);
  return InvalidArgument("completion: unknown shell '{}' ({})", shell, Join(kShells));
}

std::string OneLineDescription(const CLI::App& app) {
  // The app's description opens its --help ("gpuwhy: finds why …."); the man page's NAME line
  // already names the program and, by convention, ends without a period.
  std::string line = app.get_description();
  const std::string own_name = app.get_name() + ":";
  if (line.starts_with(own_name)) line.erase(0, own_name.size());
  while (!line.empty() && (line.front() == ' ')) line.erase(0, 1);
  while (!line.empty() && (line.back() == '.' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string ManPage(const CLI::App& app, std::string_view version) {
  std::string out;
  out += fmt::format(".TH GPUWHY 1 \"\" \"gpuwhy {}\" \"User Commands\"\n", RoffEscape(version));
  out += ".SH NAME\ngpuwhy \\- " + RoffEscape(OneLineDescription(app)) + "\n";
  out += ".SH SYNOPSIS\n.B gpuwhy\n.I COMMAND\n[\\fIOPTIONS\\fR] [\\fIINPUTS\\fR...]\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* c : VisibleCommands(app)) {
    out += ".SS " + RoffEscape(c->get_name()) + "\n.nf\n" + RoffEscape(c->help()) + "\n.fi\n";
  }
  out +=
      ".SH EXIT STATUS\n0: every input was usable. 1: a finding reached \\-\\-fail\\-on, or "
      "diff \\-\\-max\\-regression fired. 2: nothing usable in an input, a usage error, or "
      "output that could not be written. gpuwhy run exits with the command's status.\n";
  out +=
      ".SH SEE ALSO\nThe documentation installed with gpuwhy (share/doc/gpuwhy), and "
      "\\fBgpuwhy help COMMAND\\fR.\n";
  return out;
}

}  // namespace gpuwhy
