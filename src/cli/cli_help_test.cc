// The help generated from the command table: `help CMD`, `version`/-V, "did you mean",
// completions and the man page; and the start-up hook `run --profile` injects.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
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

// The man page's NAME line is "gpuwhy \- WHAT IT DOES", not "gpuwhy \- gpuwhy: …".
TEST(CliHelpTest, ManPageNameLineIsTheOneLineDescription) {
  Result man = RunGpuwhy({"man"});
  size_t name = man.out.find(".SH NAME\n");
  ASSERT_NE(name, std::string::npos);
  std::string line = man.out.substr(name + 9, man.out.find('\n', name + 9) - name - 9);
  EXPECT_EQ(line, "gpuwhy \\- finds why the GPUs of a training job sit underused");
}

// Completes |words| (the last one being typed) with the generated bash script, in bash; the
// replies, sorted, one per line.
std::string BashComplete(const std::string& script, const std::vector<std::string>& words,
                         const std::string& cwd) {
  std::string array;
  for (const std::string& w : words) array += " '" + w + "'";
  std::string program = fmt::format(
      "cd '{}' && source '{}' && COMP_WORDS=({}) && COMP_CWORD={} && _gpuwhy && "
      "printf '%s\\n' \"${{COMPREPLY[@]}}\" | sort",
      cwd, script, array, words.size() - 1);
  fs::path out = fs::path(cwd) / "reply.txt";
  fs::path file = fs::path(cwd) / "program.sh";
  std::ofstream(file) << program << "\n";
  EXPECT_EQ(std::system(("bash '" + file.string() + "' > '" + out.string() + "' 2>&1").c_str()), 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Completions know each command's arguments, not only its flags: the values a check lists
// (--format, synth's scenarios), files and folders, run's command, help's commands and the
// completion shells; numbers and argument-less commands offer nothing.
TEST(CliHelpTest, BashCompletesArgumentsAndValues) {
  if (std::system("command -v bash > /dev/null 2>&1") != 0) GTEST_SKIP() << "no bash here";
  std::string dir = MakeScratchDir("gpuwhy_completion");
  fs::create_directories(fs::path(dir) / "traces");
  std::ofstream(fs::path(dir) / "trace.json") << "{}";
  std::string script = dir + "/gpuwhy.bash";
  std::ofstream(script) << RunGpuwhy({"completion", "bash"}).out;
  auto complete = [&](const std::vector<std::string>& words) {
    return BashComplete(script, words, dir);
  };
  EXPECT_EQ(complete({"gpuwhy", "analyze", "--format", ""}), "html\njson\nmd\ntext\n");
  EXPECT_EQ(complete({"gpuwhy", "analyze", "--format", "=", "j"}), "json\n");
  EXPECT_EQ(complete({"gpuwhy", "synth", "--scenario", "input"}), "input-bound\n");
  EXPECT_EQ(complete({"gpuwhy", "completion", "z"}), "zsh\n");
  EXPECT_EQ(complete({"gpuwhy", "help", "ana"}), "analyze\n");
  EXPECT_EQ(complete({"gpuwhy", "analyze", "tr"}), "trace.json\ntraces\n");
  EXPECT_EQ(complete({"gpuwhy", "analyze", "-o", "tr"}), "trace.json\ntraces\n");
  EXPECT_EQ(complete({"gpuwhy", "run", "--trace-dir", "tr"}), "traces\n");
  EXPECT_EQ(complete({"gpuwhy", "run", "--", "bas"}).find("bash\n") != std::string::npos, true);
  EXPECT_EQ(complete({"gpuwhy", "run", "--", "python", "tr"}), "trace.json\ntraces\n");
  EXPECT_EQ(complete({"gpuwhy", "run", "--interval", ""}), "\n");
  EXPECT_EQ(complete({"gpuwhy", "version", ""}), "\n");
  EXPECT_EQ(complete({"gpuwhy", "doctor", "--fo"}), "--format\n");
  EXPECT_EQ(complete({"gpuwhy", "dif"}), "diff\n");
  fs::remove_all(dir);
}

// zsh and fish scripts carry the same values; their own parsers check them where installed.
TEST(CliHelpTest, ZshAndFishCompleteValuesToo) {
  Result zsh = RunGpuwhy({"completion", "zsh"});
  EXPECT_NE(zsh.out.find(":value:(text json md html)"), std::string::npos) << zsh.out;
  EXPECT_NE(zsh.out.find("'*:inputs:_files'"), std::string::npos);
  EXPECT_NE(zsh.out.find("'--trace-dir[Folder the job writes Kineto traces to  the newest one is "),
            std::string::npos);
  Result fish = RunGpuwhy({"completion", "fish"});
  EXPECT_NE(fish.out.find("-l scenario -d 'Scenario name (see --list)' -x -a 'healthy "),
            std::string::npos)
      << fish.out;
  EXPECT_NE(fish.out.find("__fish_seen_subcommand_from completion' -x -a 'bash zsh fish'"),
            std::string::npos);
  std::string dir = MakeScratchDir("gpuwhy_completion_syntax");
  for (const auto& [shell, text] : {std::pair{"zsh", zsh.out}, std::pair{"fish", fish.out}}) {
    if (std::system(fmt::format("command -v {} > /dev/null 2>&1", shell).c_str()) != 0) {
      std::cout << shell << " not installed: its script's syntax is not checked\n";
      continue;
    }
    std::string file = dir + "/script." + shell;
    std::ofstream(file) << text;
    EXPECT_EQ(std::system(fmt::format("{} -n '{}'", shell, file).c_str()), 0) << shell;
  }
  fs::remove_all(dir);
}

}  // namespace cli_help_test
}  // namespace gpuwhy
