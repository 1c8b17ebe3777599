// `gpuwhy analyze --format html`, `gpuwhy diff` and `gpuwhy annotate` end to end, in-process:
// exit codes, the regression gate, a JSON report as a diff input, and an annotated trace
// that `gpuwhy info` reads without error.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/cli.h"
#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace pictures_command_test {

class PicturesCommandTest : public CliFolderTest {
 protected:
  PicturesCommandTest() : CliFolderTest("gpuwhy_pictures", 8) {}
};

TEST_F(PicturesCommandTest, AnalyzeWritesAnHtmlPage) {
  std::string trace = Synth("input-bound");
  Result r = RunGpuwhy({"analyze", trace, "--format", "html"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(r.out.find("</html>"), std::string::npos);
}

TEST_F(PicturesCommandTest, DiffGateFiresOnlyOnARegression) {
  std::string healthy = Synth("healthy");
  std::string input = Synth("input-bound");
  Result worse = RunGpuwhy({"diff", healthy, input, "--max-regression", "5"});
  EXPECT_EQ(worse.code, kExitFindings) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("slower per step"), std::string::npos) << worse.out;
  EXPECT_NE(worse.out.find("REGRESSION"), std::string::npos);
  Result better = RunGpuwhy({"diff", input, healthy, "--max-regression", "5"});
  EXPECT_EQ(better.code, kExitOk) << better.err;
  Result no_gate = RunGpuwhy({"diff", healthy, input});
  EXPECT_EQ(no_gate.code, kExitOk);
  for (const char* format : {"json", "md", "html"}) {
    Result r = RunGpuwhy({"diff", healthy, input, "--format", format});
    EXPECT_EQ(r.code, kExitOk) << format << r.err;
    EXPECT_NE(r.out.find("dataloader"), std::string::npos) << format;
  }
  Result missing = RunGpuwhy({"diff", healthy, Path("absent.json")});
  EXPECT_EQ(missing.code, kExitUnusable);
}

TEST_F(PicturesCommandTest, DiffReadsAJsonReport) {
  std::string input = Synth("input-bound");
  std::string report = Path("input.report.json");
  ASSERT_EQ(RunGpuwhy({"analyze", input, "--format", "json", "-o", report}).code, kExitOk);
  Result r = RunGpuwhy({"diff", report, input, "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("\"step_change_pct\": 0"), std::string::npos) << r.out.substr(0, 600);
}

TEST_F(PicturesCommandTest, AnnotateMergesRanksAndSaysWhatItCouldNot) {
  std::string job = Path("job.json");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "comm-exposed", "--ranks", "3", "--steps", "4",
                       "--slow-rank", "1", "--slow-by", "40", "-o", job})
                .code,
            kExitOk);
  std::vector<std::string> ranks = {Path("job.rank0.json"), Path("job.rank1.json"),
                                    Path("job.rank2.json")};
  std::string out = Path("merged.json.gz");
  Result r = RunGpuwhy({"annotate", ranks[0], ranks[1], ranks[2], "-o", out});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("3 ranks merged, one process per rank; 3 of them aligned"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(RunGpuwhy({"info", out}).code, kExitOk);
  // A missing rank: the others are merged, the exit code says the result is partial.
  Result partial = RunGpuwhy({"annotate", ranks[0], ranks[2], Path("absent.json"), "-o", out});
  EXPECT_EQ(partial.code, kExitUnusable);
  EXPECT_NE(partial.err.find("absent.json"), std::string::npos) << partial.err;
  EXPECT_NE(partial.out.find("2 ranks merged"), std::string::npos) << partial.out;
  // Summary files hold no events to merge.
  std::string summary = Path("rank0.summary.json");
  ASSERT_EQ(RunGpuwhy({"analyze", ranks[0], "--summary", "-o", summary}).code, kExitOk);
  Result summaries = RunGpuwhy({"annotate", summary, ranks[1], "-o", out});
  EXPECT_EQ(summaries.code, kExitUnusable);
  EXPECT_NE(summaries.err.find("summary files"), std::string::npos) << summaries.err;
}

TEST_F(PicturesCommandTest, AnnotatedTraceLoadsInInfo) {
  std::string trace = Synth("sync-heavy");
  std::string out = Path("annotated.json.gz");
  Result r = RunGpuwhy({"annotate", trace, "-o", out});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  Result info = RunGpuwhy({"info", out});
  EXPECT_EQ(info.code, kExitOk) << info.err;
  EXPECT_TRUE(info.err.empty()) << info.err;
}

}  // namespace pictures_command_test
}  // namespace gpuwhy
