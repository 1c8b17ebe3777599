// `gpuwhy analyze` end to end, in-process: synthetic traces, missing inputs, JSON to a
// file, and every real trace under ../shared/data/kineto.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli/cli.h"
#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace analyze_command_test {

namespace fs = std::filesystem;

class AnalyzeCommandTest : public CliFolderTest {
 protected:
  AnalyzeCommandTest() : CliFolderTest("gpuwhy_analyze", 6) {}
};

TEST_F(AnalyzeCommandTest, InputBoundTraceShowsDataLoaderWait) {
  std::string trace = Synth("input-bound");
  Result r = RunGpuwhy({"analyze", trace});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("dataloader"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("input_wait"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(trace), std::string::npos);
}

TEST_F(AnalyzeCommandTest, MissingFileExitsTwoNamingThePathAndKeepsTheOthers) {
  std::string trace = Synth("healthy");
  Result r = RunGpuwhy({"analyze", "/nonexistent/gpuwhy/trace.json", trace});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.err.find("/nonexistent/gpuwhy/trace.json"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Step breakdown"), std::string::npos) << "the good input is still reported";
}

TEST_F(AnalyzeCommandTest, EmptyDirectoryIsUnusable) {
  fs::create_directories(Path("empty"));
  Result r = RunGpuwhy({"analyze", Path("empty")});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_NE(r.err.find("no trace files"), std::string::npos) << r.err;
}

TEST_F(AnalyzeCommandTest, JsonToFileWithTopN) {
  std::string trace = Synth("input-bound");
  std::string out = Path("report.json");
  Result r = RunGpuwhy({"analyze", "--format", "json", "--top", "3", "-o", out, trace});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(r.out.empty());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(out).get(doc), simdjson::SUCCESS);
  simdjson::dom::element rank = doc["ranks"].at(0);
  EXPECT_LE(rank["top_kernels"].get_array().size(), 3u);
  EXPECT_GT(rank["metrics"].get_array().size(), 10u);
}

// --hta-compat: the report says which conventions it used, the last step is left out (so
// fewer steps are analysed than without it) and the JSON carries the flag.
TEST_F(AnalyzeCommandTest, HtaCompatSaysSoAndDropsTheLastStep) {
  std::string trace = Synth("input-bound");
  Result plain = RunGpuwhy({"analyze", "--format", "json", trace});
  Result compat = RunGpuwhy({"analyze", "--hta-compat", "--format", "json", trace});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  ASSERT_EQ(compat.code, kExitOk) << compat.err;
  simdjson::dom::parser parser;
  simdjson::dom::element a, b;
  ASSERT_EQ(parser.parse(plain.out).get(a), simdjson::SUCCESS);
  size_t plain_steps = a["ranks"].at(0)["steps"].get_array().size();
  EXPECT_FALSE(bool(a["ranks"].at(0)["hta_compat"]));
  simdjson::dom::parser parser2;
  ASSERT_EQ(parser2.parse(compat.out).get(b), simdjson::SUCCESS);
  EXPECT_TRUE(bool(b["ranks"].at(0)["hta_compat"]));
  EXPECT_EQ(b["ranks"].at(0)["steps"].get_array().size() + 1, plain_steps);

  Result text = RunGpuwhy({"analyze", "--hta-compat", trace});
  EXPECT_NE(text.out.find("HolisticTraceAnalysis-compatible (--hta-compat): last ProfilerStep "
                          "dropped"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("cuda_sync busy (as HTA)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("HTA kernel types (share of GPU-op time): COMPUTATION"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(RunGpuwhy({"analyze", trace}).out.find("--hta-compat"), std::string::npos);
}

TEST_F(AnalyzeCommandTest, BadOptionsAreUsageErrors) {
  EXPECT_EQ(RunGpuwhy({"analyze"}).code, kExitUnusable);
  EXPECT_EQ(RunGpuwhy({"analyze", "x.json", "--format", "xml"}).code, kExitUnusable);
  EXPECT_EQ(RunGpuwhy({"analyze", "x.json", "--top", "0"}).code, kExitUnusable);
}

TEST_F(AnalyzeCommandTest, EveryRealTraceAnalysesWithoutError) {
  std::string dir = std::string(GPUWHY_SHARED_DATA) + "/kineto";
  if (!fs::exists(dir)) GTEST_SKIP() << "real traces absent: " << dir;
  Result r = RunGpuwhy({"analyze", "--format", "json", dir});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  EXPECT_GT(doc["ranks"].get_array().size(), 10u);
  EXPECT_EQ(doc["errors"].get_array().size(), 0u);
  Result text = RunGpuwhy({"analyze", dir});
  EXPECT_EQ(text.code, kExitOk) << text.err;
  std::istringstream lines(text.out);
  std::string line;
  while (std::getline(lines, line)) {
    size_t width = 0;
    for (char c : line) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_LE(width, 100u) << line;
  }
}

}  // namespace analyze_command_test
}  // namespace gpuwhy
