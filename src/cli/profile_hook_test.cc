// `gpuwhy run --profile`'s hook folder and what run says when no trace comes (issue 38).
#include "cli/profile_hook.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ProfileHookTest, WritesTheHookIntoAPrivateFolderFirstOnPythonPath) {
  std::string tmp = MakeScratchDir("gpuwhy_hook");
  ::setenv("TMPDIR", tmp.c_str(), 1);
  ::unsetenv("XDG_RUNTIME_DIR");
  ::setenv("PYTHONPATH", "/theirs", 1);
  std::string hook_dir;
  {
    ProfileRunFolder folder;
    ASSERT_TRUE(folder.Create().ok());
    hook_dir = folder.hook_dir();
    auto env = InstallProfileHook(folder, tmp + "/traces", 7);
    ::unsetenv("PYTHONPATH");
    ASSERT_TRUE(env.ok()) << env.status().message();
    EXPECT_NE(Slurp(hook_dir + "/_gpuwhy_autoprofile.py").find("def install_from_environment"),
              std::string::npos);
    EXPECT_NE(Slurp(hook_dir + "/sitecustomize.py").find("if __name__ == \"sitecustomize\":"),
              std::string::npos);
    ASSERT_EQ(env->size(), 6u);
    EXPECT_EQ((*env)[0], "PYTHONPATH=" + hook_dir + ":/theirs");
    EXPECT_EQ((*env)[1], "GPUWHY_PROFILE_DIR=" + fs::absolute(tmp + "/traces").string());
    EXPECT_EQ((*env)[2], "GPUWHY_PROFILE_STATUS=" + folder.status_dir());
    EXPECT_EQ((*env)[3], "GPUWHY_PROFILE_STEPS=7");
    EXPECT_TRUE(fs::is_directory(tmp + "/traces"));
  }
  // The run's folder goes; its parent, ours alone, stays so nobody can make it again.
  EXPECT_FALSE(fs::exists(hook_dir));
  const std::string parent = fs::path(hook_dir).parent_path().parent_path().string();
  EXPECT_EQ(parent, tmp + "/gpuwhy-" + std::to_string(::geteuid()));
  struct stat st {};
  ASSERT_EQ(::lstat(parent.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  // A parent someone else could write into is refused, not used.
  ::chmod(parent.c_str(), 0777);
  ProfileRunFolder refused;
  Status status = refused.Create();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("open to other users"), std::string::npos) << status.message();
  ::unsetenv("TMPDIR");
  fs::remove_all(tmp);
}

TEST(ProfileHookTest, TracesWrittenSinceListsTracesOnly) {
  std::string dir = MakeScratchDir("gpuwhy_hook");
  std::ofstream(dir + "/rank1.h_2.pt.trace.json") << "[]";
  std::ofstream(dir + "/rank0.h_1.pt.trace.json") << "[]";
  std::ofstream(dir + "/rank0.h_1.summary.json") << "{}";
  std::ofstream(dir + "/.rank2.h_3.pt.trace.json.ab12.partial") << "[";
  auto traces = TracesWrittenSince(dir, 0);
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_EQ(fs::path(traces[0]).filename(), "rank0.h_1.pt.trace.json");
  fs::remove_all(dir);
}

TEST(ProfileHookTest, ExplainsAMissingTraceFromHowFarTheProcessesGot) {
  std::string dir = MakeScratchDir("gpuwhy_status");
  auto note = [&](const std::string& pid, const std::string& lines) {
    std::ofstream(dir + "/" + pid, std::ios::app) << lines;
  };
  EXPECT_NE(ExplainProfileOutcome(dir, 3, 0).find("no Python process of the job loaded"),
            std::string::npos);
  note("10", "python2 /usr/bin/python2\n");
  EXPECT_NE(ExplainProfileOutcome(dir, 3, 0).find("Python 2"), std::string::npos);
  note("11", "loaded /usr/bin/python3\n");
  EXPECT_NE(ExplainProfileOutcome(dir, 3, 0).find("never imported torch"), std::string::npos);
  note("11", "torch\n");
  EXPECT_NE(ExplainProfileOutcome(dir, 3, 0).find("stepped no torch.optim optimizer"),
            std::string::npos);
  note("11", "stepped\n");
  EXPECT_NE(ExplainProfileOutcome(dir, 3, 0).find("ended before the window"), std::string::npos);
  note("11", "failed trace not written: OSError: [Errno 28] No space left on device\n");
  EXPECT_EQ(ExplainProfileOutcome(dir, 3, 0),
            "no trace was written: trace not written: OSError: [Errno 28] No space left on "
            "device");
  // A trace came from another rank: said only as the one that failed.
  EXPECT_NE(ExplainProfileOutcome(dir, 3, 1).find("1 process(es) wrote no trace"),
            std::string::npos);
  fs::remove_all(dir);
  EXPECT_EQ(ExplainProfileOutcome(dir + "-absent", 3, 1), "");
}

}  // namespace
}  // namespace gpuwhy
