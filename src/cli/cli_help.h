// Help generated from the command table (the CLI11 app every command registers into), so the
// terminal help, the man page, the shell completions and the "did you mean" hints never
// disagree: `gpuwhy help CMD`, `gpuwhy completion bash|zsh|fish`, `gpuwhy man`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gpuwhy {

// " (did you mean 'analyze'?)" for the first argument that is a near miss of a subcommand or
// of a flag of the subcommand given; empty when none is.
std::string DidYouMean(const CLI::App& app, const std::vector<std::string>& args);

// A completion script for |shell| (bash, zsh or fish): subcommands, each one's flags, and the
// values they take: the choices a check lists (--format), files, folders (--*-dir), run's
// command, the commands of help and the shells of completion.
StatusOr<std::string> CompletionScript(const CLI::App& app, std::string_view shell);

// The app's description as a man page NAME line wants it: without the program's own name
// before it and without a final period ("finds why the GPUs of a training job sit underused").
std::string OneLineDescription(const CLI::App& app);

// gpuwhy.1 in roff: the top-level description and, per subcommand, its help text.
std::string ManPage(const CLI::App& app, std::string_view version);

// The visible subcommands, in registration order.
std::vector<const CLI::App*> VisibleCommands(const CLI::App& app);

}  // namespace gpuwhy
