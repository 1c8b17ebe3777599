// `--` ends gpuwhy's options everywhere: every argument after the first `--` is a plain value
// (a command's argv, a path), whatever it looks like. CLI11 alone does not guarantee it: an
// option whose values are optional (`run --profile`) or unlimited (a vector) "eats" a `--`
// that follows it, and the arguments after it are then parsed as options (`-c` of
// `python3 -c`) or subcommand names. So the arguments after `--` are escaped (a prefix CLI11
// takes for an ordinary value) before parsing, and every option of the app unescapes them.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gpuwhy {

// |args| with every argument after the first "--" escaped. An argument before
// it that happens to start with the escape prefix is escaped too, so unescaping restores
// every argument exactly.
std::vector<std::string> EscapeArgumentsAfterDoubleDash(const std::vector<std::string>& args);

// Makes every option of |app| and its subcommands (positionals included) unescape its values
// before they are checked or stored. Call once the app is complete, before parsing.
void UnescapeOptionValues(CLI::App& app);

// |message| (a CLI11 error naming an argument) without the escape prefix.
std::string UnescapeMessage(std::string message);

}  // namespace gpuwhy
