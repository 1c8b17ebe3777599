// Where commands write (issue 21): never over one of their inputs, all or nothing, and never
// silently into a full disk.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <sstream>
#include <streambuf>
#include <vector>

#include "base/file_input.h"
#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace output_file_test {

namespace fs = std::filesystem;

class OutputFileTest : public CliFolderTest {
 protected:
  OutputFileTest() : CliFolderTest("gpuwhy_output_file", 3) {}
  std::string Read(const std::string& path) const {
    StatusOr<std::string> bytes = ReadWholeFile(path);
    return bytes.ok() ? *bytes : "unreadable: " + bytes.status().message();
  }
};

// -o naming an input (the same path, another path to it, a hard link, a symlink, a file of an
// input folder) is refused in one line before anything is read, and the input is untouched.
TEST_F(OutputFileTest, AnOutputThatIsAnInputIsRefusedBeforeReading) {
  const std::string trace = Synth("healthy");
  fs::create_hard_link(trace, Path("hard.json"));
  fs::create_symlink(trace, Path("sym.json"));
  fs::create_directories(Path("ranks"));
  fs::copy_file(trace, Path("ranks/rank0.json"));
  const std::string dmon = Write("dmon.txt", "# gpu pwr\n# Idx W\n    0  70\n    0  71\n");
  fs::create_directories(Path("bundle"));
  const std::string dmesg = Write("bundle/dmesg.txt", "[    5.1] NVRM: Xid (PCI:0000:3b:00): 79\n");
  const std::string config = Write("rules.conf", "# no override\n");
  const std::string trace_bytes = Read(trace);
  const std::string rank_bytes = Read(Path("ranks/rank0.json"));
  const std::string dmon_bytes = Read(dmon);
  const std::string dmesg_bytes = Read(dmesg);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"info", trace, "-o", trace}, trace},
      {{"analyze", trace, "-o", Path("hard.json")}, Path("hard.json")},
      {{"analyze", "--summary", trace, "-o", Path("./hard.json")}, Path("./hard.json")},
      {{"analyze", Path("ranks"), "-o", Path("ranks/rank0.json")}, Path("ranks/rank0.json")},
      {{"annotate", trace, "-o", Path("sym.json")}, Path("sym.json")},
      {{"diff", trace, Path("ranks/rank0.json"), "-o", trace}, trace},
      {{"export-csv", dmon, "-o", dmon}, dmon},
      {{"doctor", "--from", Path("bundle"), "-o", dmesg}, dmesg},
      {{"analyze", trace, "--config", config, "-o", config}, config},
  };
  for (const auto& [args, output] : cases) {
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitUnusable) << args[0] << " " << output;
    EXPECT_EQ(r.err, "gpuwhy: refusing to write " + output + ": it is an input\n");
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
  }
  EXPECT_EQ(Read(trace), trace_bytes);
  EXPECT_EQ(Read(Path("ranks/rank0.json")), rank_bytes);
  EXPECT_EQ(Read(dmon), dmon_bytes);
  EXPECT_EQ(Read(dmesg), dmesg_bytes);
}

// A file of a trace folder that the command does not read is not an input: a report written
// beside the traces can be written again.
TEST_F(OutputFileTest, AReportBesideTheTracesIsNotAnInput) {
  fs::create_directories(Path("ranks"));
  fs::copy_file(Synth("healthy"), Path("ranks/rank0.json"));
  for (int run = 0; run < 2; ++run) {
    Result r =
        RunGpuwhy({"analyze", Path("ranks"), "--format", "md", "-o", Path("ranks/report.md")});
    EXPECT_EQ(r.code, kExitOk) << r.err;
  }
  EXPECT_NE(Read(Path("ranks/report.md")).find("rank0.json"), std::string::npos);
}

// A write that fails part-way (the file size limit stands in for a full disk): the old report
// stays as it was, no temporary is left, the error names the file and the exit code is 2.
TEST_F(OutputFileTest, AFailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
  const std::string trace = Synth("input-bound");
  fs::create_directories(Path("out"));
  const std::string report = Write("out/report.md", "old report\n");
  const std::string annotated = Write("out/annotated.json.gz", "old trace\n");
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 2048;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Result analyzed = RunGpuwhy({"analyze", trace, "--format", "md", "-o", report});
  Result annotate = RunGpuwhy({"annotate", trace, "-o", annotated});
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_EQ(analyzed.code, kExitUnusable);
  EXPECT_EQ(analyzed.err, "gpuwhy: " + report + ": write failed: File too large\n");
  EXPECT_EQ(annotate.code, kExitUnusable);
  EXPECT_EQ(annotate.err.rfind("gpuwhy: " + annotated + ": ", 0), 0u) << annotate.err;
  EXPECT_EQ(Read(report), "old report\n");
  EXPECT_EQ(Read(annotated), "old trace\n");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(Path("out")))
    left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"annotated.json.gz", "report.md"}));
}

// Standard output that cannot be written (>/dev/full): one line and exit 2, whatever the
// command found.
class FullStreambuf : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST_F(OutputFileTest, AReportThatCannotReachStandardOutputExitsTwo) {
  const std::string trace = Synth("healthy");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"analyze", trace}, {"info", trace}, {"diff", trace, trace}}) {
    FullStreambuf full;
    std::ostream out(&full);
    std::ostringstream err;
    EXPECT_EQ(RunCli(args, CliContext{out, err, ColourMode::kOff}), kExitUnusable) << args[0];
    EXPECT_EQ(err.str(), "gpuwhy: standard output: write failed\n") << args[0];
  }
}

}  // namespace output_file_test
}  // namespace gpuwhy
