// The help generated from the command table: `help CMD`, `version`/-V, "did you mean",
// completions and the man page; and the start-up hook `run --profile` injects.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"

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

}  // namespace cli_help_test
}  // namespace gpuwhy
