// The help generated from the command table: `help CMD`, `version`/-V, "did you mean",
// completions and the man page; and the start-up hook `run --profile` injects.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"
#include "cli/profile_hook.h"

namespace gpuwhy {
namespace cli_help_test {

namespace fs = std::filesystem;

TEST(CliHelpTest, HelpOfACommandIsItsOwnHelp) {
  Result help = RunGpuwhy({"help", "diff"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--max-regression"), std::string::npos) << help.out;
  Result flag = RunGpuwhy({"diff", "--help"});
  EXPECT_NE(flag.out.find("--max-regression"), std::string::npos);
  // The same text, usage line included ("Usage: gpuwhy diff ...", not "Usage: diff ...").
  EXPECT_EQ(help.out, flag.out);
  Result unknown = RunGpuwhy({"help", "analyse"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'analyze'?"), std::string::npos) << unknown.err;
}

TEST(CliHelpTest, VersionCommandAndShortFlag) {
  Result version = RunGpuwhy({"version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.out.rfind("gpuwhy ", 0), 0u) << version.out;
  Result flag = RunGpuwhy({"-V"});
  EXPECT_EQ(flag.code, 0);
  EXPECT_EQ(flag.out, version.out);
  EXPECT_EQ(RunGpuwhy({"--version"}).out, version.out);
}

// --profile takes its step count as --profile=N or --profile N, or none (the default).
TEST(CliHelpTest, ProfileStepsWithOrWithoutEqualsSign) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--profile", "5"}, {"--profile=5"}, {"--profile"}}) {
    args.insert(args.begin(), "run");
    for (const char* word : {"--", "true"}) args.push_back(word);
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, 0) << args[1] << ": " << r.err;
    EXPECT_EQ(r.err.find("not expected"), std::string::npos) << r.err;
  }
  Result zero = RunGpuwhy({"run", "--profile", "0", "--", "true"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("--profile"), std::string::npos) << zero.err;
}

TEST(CliHelpTest, MisspeltCommandsAndFlagsGetASuggestion) {
  Result command = RunGpuwhy({"analyse", "x.json"});
  EXPECT_EQ(command.code, 2);
  EXPECT_NE(command.err.find("(did you mean 'analyze'?)"), std::string::npos) << command.err;
  Result flag = RunGpuwhy({"analyze", "--fromat", "json", "x.json"});
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("(did you mean '--format'?)"), std::string::npos) << flag.err;
  // Far from every name: no guess.
  Result far = RunGpuwhy({"zzzzzzzzzz"});
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST(CliHelpTest, CompletionsAndManPageComeFromTheCommandTable) {
  for (const char* shell : {"bash", "zsh", "fish"}) {
    Result r = RunGpuwhy({"completion", shell});
    EXPECT_EQ(r.code, 0) << shell;
    for (const char* word : {"analyze", "doctor", "run", "profile"}) {
      EXPECT_NE(r.out.find(word), std::string::npos) << shell << " lacks " << word;
    }
  }
  EXPECT_EQ(RunGpuwhy({"completion", "tcsh"}).code, 2);
  Result man = RunGpuwhy({"man"});
  EXPECT_EQ(man.out.rfind(".TH GPUWHY 1", 0), 0u);
  EXPECT_NE(man.out.find(".SS run"), std::string::npos);
  EXPECT_NE(man.out.find("\\-\\-profile"), std::string::npos) << "run's help, roff-escaped";
  // The hidden man command is not offered as a subcommand.
  EXPECT_EQ(RunGpuwhy({"completion", "bash"}).out.find(" man "), std::string::npos);
}

TEST(ProfileHookTest, WritesTheHookAndPutsItFirstOnPythonPath) {
  std::string dir = MakeScratchDir("gpuwhy_hook");
  ::setenv("PYTHONPATH", "/theirs", 1);
  auto env = InstallProfileHook(dir + "/hook", dir + "/traces", 7);
  ::unsetenv("PYTHONPATH");
  ASSERT_TRUE(env.ok()) << env.status().message();
  std::ifstream hook(dir + "/hook/sitecustomize.py");
  std::stringstream text;
  text << hook.rdbuf();
  EXPECT_NE(text.str().find("def _install_from_environment"), std::string::npos);
  EXPECT_NE(text.str().find("if __name__ == \"sitecustomize\":"), std::string::npos);
  ASSERT_EQ(env->size(), 5u);
  EXPECT_EQ((*env)[0], "PYTHONPATH=" + fs::absolute(dir + "/hook").string() + ":/theirs");
  EXPECT_EQ((*env)[1], "GPUWHY_PROFILE_DIR=" + fs::absolute(dir + "/traces").string());
  EXPECT_EQ((*env)[2], "GPUWHY_PROFILE_STEPS=7");
  EXPECT_TRUE(fs::is_directory(dir + "/traces"));
  std::ofstream(dir + "/traces/rank1.h_2.pt.trace.json") << "[]";
  std::ofstream(dir + "/traces/rank0.h_1.pt.trace.json") << "[]";
  std::ofstream(dir + "/traces/rank0.h_1.summary.json") << "{}";
  auto traces = TracesWrittenSince(dir + "/traces", 0);
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_EQ(fs::path(traces[0]).filename(), "rank0.h_1.pt.trace.json");
  fs::remove_all(dir);
}

}  // namespace cli_help_test
}  // namespace gpuwhy
