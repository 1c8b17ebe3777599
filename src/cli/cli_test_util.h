// Shared by the command-line tests: run gpuwhy in-process and give each test a folder.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace gpuwhy {

struct Result {
  int code;
  std::string out;
  std::string err;
};

inline Result RunGpuwhy(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  int code = RunCli(args, CliContext{out, err, ColourMode::kOff});
  return {code, out.str(), err.str()};
}

// A new, empty folder under the system temp folder ("/tmp/PREFIX_XXXXXX").
inline std::string MakeScratchDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
  return ::mkdtemp(pattern.data());
}

}  // namespace gpuwhy
