// Files that capture several commands one after another, each section headed by the command
// it ran ("# $ nvidia-smi -q" between rulers of '#', as nvidia_gpu_exporter's captures and
// support scripts that `echo "# $ CMD"; CMD` write them). Read as a whole they look like
// whichever output comes first and mix every section into one parser; split, each section
// goes to the parser of its command.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ingest/system/system_parsers.h"

namespace gpuwhy::system {

struct CapturedSection {
  std::string_view command;  // "nvidia-smi -q", trimmed
  std::string_view text;     // the command's output
  int64_t first_line = 0;    // 1-based line of the output's first line in the file
};

// The sections of |text|, in order; empty when |text| has fewer than two "# $ " headers.
std::vector<CapturedSection> SplitCommandCapture(std::string_view text);

// The system format a command prints (kUnknown for help, version, listings and commands
// gpuwhy does not read).
SystemFormat FormatOfCommand(std::string_view command);

}  // namespace gpuwhy::system
