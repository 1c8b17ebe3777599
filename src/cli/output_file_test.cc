// Where commands write (issue 21): never over one of their inputs.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file_input.h"
#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace {

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

}  // namespace
}  // namespace gpuwhy
