// Shared by the command-line tests: run gpuwhy in-process and give each test a folder.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

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

// A test with a folder of its own (removed afterwards) and synthetic traces written into it.
class CliFolderTest : public ::testing::Test {
 protected:
  CliFolderTest(std::string prefix, int synth_steps)
      : prefix_(std::move(prefix)), synth_steps_(synth_steps) {}
  void SetUp() override { dir_ = MakeScratchDir(prefix_); }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const {
    return (std::filesystem::path(dir_) / name).string();
  }
  // Writes |content| to DIR/NAME; its path.
  std::string Write(const std::string& name, std::string_view content) const {
    std::ofstream(Path(name), std::ios::binary)
        .write(content.data(), static_cast<std::streamsize>(content.size()));
    return Path(name);
  }
  // `gpuwhy synth --scenario S --steps N -o DIR/S.json`; the trace's path.
  std::string Synth(const std::string& scenario) const {
    std::string path = Path(scenario + ".json");
    Result r = RunGpuwhy(
        {"synth", "--scenario", scenario, "--steps", std::to_string(synth_steps_), "-o", path});
    EXPECT_EQ(r.code, kExitOk) << r.err;
    return path;
  }
  std::string dir_;

 private:
  std::string prefix_;
  int synth_steps_;
};

}  // namespace gpuwhy
