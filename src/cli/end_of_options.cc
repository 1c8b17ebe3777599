#include "cli/end_of_options.h"

#include <algorithm>

namespace gpuwhy {
namespace {

// Two ASCII control bytes no shell user types: CLI11 classifies a value that starts with them
// as a plain value (not an option, not a subcommand, not "--").
constexpr std::string_view kEscape = "\x1f\x1e";

std::string Escape(const std::string& arg) { return std::string(kEscape) + arg; }

std::string Unescape(std::string value) {
  if (value.starts_with(kEscape)) value.erase(0, kEscape.size());
  return value;
}

void UnescapeOptionsOf(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() == 0) continue;  // a flag takes no value
    option->transform(Unescape);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    UnescapeOptionsOf(*sub);
  }
}

}  // namespace

std::vector<std::string> EscapeArgumentsAfterDoubleDash(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  out.reserve(args.size());
  auto dash = std::find(args.begin(), args.end(), "--");
  for (auto it = args.begin(); it != dash; ++it) {
    out.push_back(it->starts_with(kEscape) ? Escape(*it) : *it);
  }
  if (dash == args.end()) return out;
  // The "--" stays: it still ends an optional value (`--profile -- python3` is not
  // `--profile=python3`). Whether or not an option eats it, what follows is escaped.
  out.push_back("--");
  for (auto it = dash + 1; it != args.end(); ++it) out.push_back(Escape(*it));
  return out;
}

void UnescapeOptionValues(CLI::App& app) { UnescapeOptionsOf(app); }

std::string UnescapeMessage(std::string message) {
  for (size_t at = message.find(kEscape); at != std::string::npos; at = message.find(kEscape, at))
    message.erase(at, kEscape.size());
  return message;
}

}  // namespace gpuwhy
