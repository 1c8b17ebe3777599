// End-to-end tests of the command line, run in-process with string streams.
#include "cli/cli.h"
#include "cli/cli_test_util.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "base/file_input.h"

namespace gpuwhy {
namespace cli_test {

namespace fs = std::filesystem;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeScratchDir("gpuwhy_cli"); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  std::string Write(const std::string& name, std::string_view content) const {
    std::ofstream(Path(name), std::ios::binary)
        .write(content.data(), static_cast<std::streamsize>(content.size()));
    return Path(name);
  }
  std::string dir_;
};

TEST_F(CliTest, InfoOnMissingFileNamesThePath) {
  Result r = RunGpuwhy({"info", "/nonexistent/gpuwhy/trace.json"});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_EQ(r.err, "gpuwhy: /nonexistent/gpuwhy/trace.json: no such file or directory\n");
}

TEST_F(CliTest, InfoOnNonJsonGivesByteOffset) {
  std::string path = Write("notes.json", "hello, world");
  Result r = RunGpuwhy({"info", path});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_EQ(r.err, "gpuwhy: " + path + ": byte 0: not a trace (expected Kineto JSON)\n");
}

TEST_F(CliTest, InfoJsonListsFailures) {
  std::string path = Write("binary.json", std::string_view("\0\1\2", 3));
  Result r = RunGpuwhy({"info", "--format", "json", path});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.out.find("\"errors\""), std::string::npos);
  EXPECT_NE(r.out.find("byte 0"), std::string::npos);
}

TEST_F(CliTest, UsageErrorsExitTwoWithOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{},
                                             {"nonsense"},
                                             {"info"},
                                             {"info", "x.json", "--format", "xml"},
                                             {"synth", "--steps", "abc"}}) {
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitUnusable) << ::testing::PrintToString(args);
    EXPECT_EQ(r.err.rfind("gpuwhy: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST_F(CliTest, HelpExitsZero) {
  Result r = RunGpuwhy({"--help"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_NE(r.out.find("info"), std::string::npos);
  r = RunGpuwhy({"info", "--help"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_NE(r.out.find("--format"), std::string::npos);
  // analyze reads every input the front door recognises, and its help says so.
  r = RunGpuwhy({"analyze", "--help"});
  for (const char* kind :
       {"Nsight Systems SQLite", "gpuwhy recording", "dmon", "node logs", "Nsight Compute",
        "_dump_snapshot", "memory_summary()", "nsys stats", "rank summaries", "--strict"}) {
    EXPECT_NE(r.out.find(kind), std::string::npos) << kind;
  }
}

TEST_F(CliTest, SynthListNamesTheScenarios) {
  Result r = RunGpuwhy({"synth", "--list"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  for (const char* name : {"healthy", "input-bound", "launch-bound", "sync-heavy", "comm-exposed",
                           "pageable-copies", "small-grids", "memory-bound-elementwise"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

TEST_F(CliTest, SynthRejectsUnknownScenarioAndMissingOutput) {
  Result r = RunGpuwhy({"synth", "--scenario", "no-such-thing", "-o", Path("x.json")});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.err.find("no-such-thing"), std::string::npos);
  r = RunGpuwhy({"synth", "--scenario", "healthy"});
  EXPECT_EQ(r.code, kExitUnusable);
}

TEST_F(CliTest, SynthWritesTraceAndTruth) {
  std::string path = Path("healthy.json");
  Result r = RunGpuwhy({"synth", "--scenario", "healthy", "--steps", "3", "-o", path});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(fs::exists(path));
  EXPECT_TRUE(fs::exists(path + ".truth.json"));
}

// ---------------------------------------------------------------------------------------
// The tests below import a real trace, so they need the Kineto importer
// (src/ingest/kineto). Until it lands they fail with "kineto importer not built yet".
// ---------------------------------------------------------------------------------------

TEST_F(CliTest, NeedsKinetoSynthThenInfoText) {
  std::string path = Path("input.pt.trace.json");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "input-bound", "--steps", "4", "-o", path}).code,
            kExitOk);
  Result r = RunGpuwhy({"info", path});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find(path), std::string::npos);
  EXPECT_NE(r.out.find("kernels"), std::string::npos);
  EXPECT_NE(r.out.find("ProfilerStep"), std::string::npos);
}

TEST_F(CliTest, NeedsKinetoSynthThenInfoJsonHasKernelCount) {
  std::string path = Path("input.pt.trace.json.gz");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "input-bound", "--steps", "4", "-o", path}).code,
            kExitOk);
  std::string json_path = Path("info.json");
  Result r = RunGpuwhy({"info", "--format", "json", "-o", json_path, path});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(r.out.empty());
  StatusOr<std::string> json = ReadWholeFile(json_path);
  ASSERT_TRUE(json.ok());
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(*json);
  simdjson::ondemand::document doc = parser.iterate(padded);
  simdjson::ondemand::object file = doc["files"].at(0).get_object();
  int64_t kernels = 0;
  ASSERT_EQ(file["counts"]["kernels"].get_int64().get(kernels), simdjson::SUCCESS);
  EXPECT_GT(kernels, 0);
  // The generator's ground truth counts what it wrote; the importer must see all of it.
  StatusOr<std::string> truth = ReadWholeFile(path + ".truth.json");
  ASSERT_TRUE(truth.ok());
  simdjson::padded_string padded_truth(*truth);
  simdjson::ondemand::document truth_doc = parser.iterate(padded_truth);
  int64_t written = 0;
  ASSERT_EQ(truth_doc["counts"]["kernel"].get_int64().get(written), simdjson::SUCCESS);
  EXPECT_EQ(kernels, written);
}

TEST_F(CliTest, NeedsKinetoInfoReportsBadInputsAndContinues) {
  std::string good = Path("good.json");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "healthy", "--steps", "2", "-o", good}).code,
            kExitOk);
  std::string bad = Write("bad.json", "garbage");
  Result r = RunGpuwhy({"info", bad, good});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.err.find(bad + ": byte 0"), std::string::npos);
  EXPECT_NE(r.out.find(good), std::string::npos);  // the good one was still described
}

TEST_F(CliTest, NeedsKinetoDemoSaysSynthetic) {
  Result r = RunGpuwhy({"demo", "--keep", Path("demo")});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("SYNTHETIC"), std::string::npos);
  EXPECT_NE(r.out.find("kernels"), std::string::npos);
}

// --step-range picks the NVTX ranges of an Nsight Systems export that are steps; a pattern
// that is not a regex is a usage error before anything is read.
TEST_F(CliTest, StepRangeSelectsNsysSteps) {
  std::string sqlite = Path("job.sqlite");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "input-bound", "--steps", "8", "--format",
                       "nsys-sqlite", "-o", sqlite})
                .code,
            kExitOk);
  Result all = RunGpuwhy({"info", sqlite});
  ASSERT_EQ(all.code, kExitOk) << all.err;
  EXPECT_NE(all.out.find("8 ProfilerStep (#1 to #8)"), std::string::npos) << all.out;
  Result some = RunGpuwhy({"info", sqlite, "--step-range", "ProfilerStep#[2-4]"});
  ASSERT_EQ(some.code, kExitOk) << some.err;
  EXPECT_NE(some.out.find("3 ProfilerStep (#2 to #4)"), std::string::npos) << some.out;
  Result analyzed =
      RunGpuwhy({"analyze", sqlite, "--step-range", "ProfilerStep#[2-4]", "--format", "json"});
  ASSERT_EQ(analyzed.code, kExitOk) << analyzed.err;
  Result bad = RunGpuwhy({"analyze", sqlite, "--step-range", "(unclosed"});
  EXPECT_EQ(bad.code, kExitUnusable);
  EXPECT_NE(bad.err.find("not a regular expression"), std::string::npos) << bad.err;
}

TEST(ColourModeTest, NoColorDisablesColour) {
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_EQ(DetectColourMode(1), ColourMode::kOff);
  ::unsetenv("NO_COLOR");
}

TEST(ColourModeTest, PipeIsNotATerminal) {
  ::unsetenv("NO_COLOR");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_EQ(DetectColourMode(fds[1]), ColourMode::kOff);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace cli_test
}  // namespace gpuwhy
