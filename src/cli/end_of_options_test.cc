// `--` ends gpuwhy's options everywhere (issue 38): `run --profile -- python3 -c …` was a usage
// error because CLI11 let --profile's optional value eat the `--`.
#include "cli/end_of_options.h"

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace {

TEST(EndOfOptionsTest, EscapingRoundTripsEveryArgument) {
  const std::vector<std::string> args = {"run",      "--profile", "--",  "python3", "-c",
                                         "print(1)", "--",        "run", "++"};
  std::vector<std::string> escaped = EscapeArgumentsAfterDoubleDash(args);
  ASSERT_EQ(escaped.size(), args.size());
  EXPECT_EQ(escaped[0], "run");
  EXPECT_EQ(escaped[2], "--");
  for (size_t i = 3; i < args.size(); ++i) EXPECT_NE(escaped[i], args[i]) << i;
  // Nothing to escape without "--".
  EXPECT_EQ(EscapeArgumentsAfterDoubleDash({"analyze", "-o", "x"}),
            (std::vector<std::string>{"analyze", "-o", "x"}));
}

// The positional after `--` reaches the command verbatim, whatever precedes the `--`.
std::string FirstLineOfRun(const std::vector<std::string>& flags) {
  std::string dir = MakeScratchDir("gpuwhy_dashdash");
  std::vector<std::string> args = {"run", "--report", dir + "/r.txt"};
  args.insert(args.end(), flags.begin(), flags.end());
  for (const char* a : {"--", "sh", "-c", "echo \"$0 $1\" > \"$2\"", "-o", "run"})
    args.push_back(a);
  args.push_back(dir + "/out.txt");
  Result r = RunGpuwhy(args);
  EXPECT_EQ(r.code, 0) << r.err;
  std::ifstream in(dir + "/out.txt");
  std::string line;
  std::getline(in, line);
  std::filesystem::remove_all(dir);
  return line;
}

TEST(EndOfOptionsTest, DoubleDashEndsRunsOptionsAfterAnOptionalValue) {
  EXPECT_EQ(FirstLineOfRun({}), "-o run");
  EXPECT_EQ(FirstLineOfRun({"--profile"}), "-o run");
  EXPECT_EQ(FirstLineOfRun({"--profile", "4"}), "-o run");
  EXPECT_EQ(FirstLineOfRun({"--set", "input.dataloader_wait.min_step_pct=3"}), "-o run");
}

TEST(EndOfOptionsTest, AnalyzeTakesAPathThatLooksLikeAnOption) {
  std::string dir = MakeScratchDir("gpuwhy_dashdash");
  const std::string notes = dir + "/notes.txt";
  std::ofstream(notes) << "mine\n";
  // Run from |dir| so that "-onotes.txt" names a file there.
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  Result r = RunGpuwhy({"analyze", "--", "-onotes.txt"});
  std::filesystem::current_path(cwd);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("-onotes.txt"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\x1f"), std::string::npos) << r.err;  // no escape byte shows
  std::ifstream in(notes);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "mine");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuwhy
