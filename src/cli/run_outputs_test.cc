// `gpuwhy run`'s outputs are checked before the job starts (issue 38): the job never runs
// when they collide or cannot be written.
#include "cli/run_outputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

class RunOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeScratchDir("gpuwhy_outputs"); }
  void TearDown() override { fs::remove_all(dir_); }
  // `run FLAGS -- touch DIR/ran`: the result, and whether the job ran.
  std::pair<Result, bool> Run(std::vector<std::string> flags) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), flags.begin(), flags.end());
    for (std::string a : std::vector<std::string>{"--", "touch", dir_ + "/ran"}) args.push_back(a);
    Result r = RunGpuwhy(args);
    return {r, fs::exists(dir_ + "/ran")};
  }
  std::string dir_;
};

TEST_F(RunOutputsTest, RecordingAndReportOnOneFileAreRefused) {
  for (const std::string& other : {dir_ + "/x", dir_ + "/./x", dir_ + "/sub/../x"}) {
    fs::create_directories(dir_ + "/sub");
    auto [r, ran] = Run({"-o", dir_ + "/x", "--report", other});
    EXPECT_EQ(r.code, kExitUnusable) << other;
    EXPECT_NE(r.err.find("-o and --report both name"), std::string::npos) << r.err;
    EXPECT_FALSE(ran);
  }
  // A symlink to the recording is the same file.
  std::ofstream(dir_ + "/rec") << "old";
  fs::create_symlink(dir_ + "/rec", dir_ + "/link");
  auto [r, ran] = Run({"-o", dir_ + "/rec", "--report", dir_ + "/link"});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_FALSE(ran);
}

TEST_F(RunOutputsTest, AReportThatCannotBeWrittenStopsBeforeTheJobStarts) {
  for (const std::string& report :
       {dir_ + "/missing/r.txt", dir_, std::string("/proc/gpuwhy-r.txt")}) {
    auto [r, ran] = Run({"--report", report});
    EXPECT_EQ(r.code, kExitUnusable) << report << ": " << r.err;
    EXPECT_FALSE(ran) << report;
  }
  // A device opens for writing; a new file in a writable folder is fine (and only probed).
  auto [r, ran] = Run({"--report", "/dev/null"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(ran);
  fs::remove(dir_ + "/ran");
  auto [r2, ran2] = Run({"--report", dir_ + "/r.txt"});
  EXPECT_EQ(r2.code, 0) << r2.err;
  EXPECT_TRUE(ran2);
  EXPECT_TRUE(fs::exists(dir_ + "/r.txt"));
  size_t files = 0;
  for (auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 2u) << "ran and r.txt, no probe left behind";
}

}  // namespace
}  // namespace gpuwhy
