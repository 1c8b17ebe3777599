// `gpuwhy analyze` on several ranks: the cross-rank view from traces, from --summary files,
// and the input problems it reports without giving up.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace analyze_ranks_test {

namespace fs = std::filesystem;

class AnalyzeRanksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeScratchDir("gpuwhy_analyze_ranks");
    Result synth = RunGpuwhy({"synth", "--scenario", "comm-exposed", "--ranks", "4", "--steps", "4",
                              "--slow-rank", "2", "--slow-by", "30", "-o", dir_ + "/job.json"});
    ASSERT_EQ(synth.code, 0) << synth.err;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Rank(int r) const { return dir_ + "/job.rank" + std::to_string(r) + ".json"; }

  // The title of the job-wide comm.straggler finding of a JSON report ("" when absent).
  static std::string StragglerTitle(const std::string& json) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(json).get(doc) != simdjson::SUCCESS) return "not json";
    simdjson::dom::array findings;
    if (doc["cross_rank"]["diagnosis"]["findings"].get(findings) != simdjson::SUCCESS) return "";
    for (simdjson::dom::element f : findings) {
      if (std::string_view(f["id"].get_string().value()) == "comm.straggler")
        return std::string(f["title"].get_string().value());
    }
    return "";
  }

  std::string dir_;
};

TEST_F(AnalyzeRanksTest, FolderOfRanksNamesTheStraggler) {
  Result r =
      RunGpuwhy({"analyze", Rank(0), Rank(1), Rank(2), Rank(3), "--format", "json", "--jobs", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(StragglerTitle(r.out).rfind("rank 2 arrives last", 0), 0u) << StragglerTitle(r.out);
  Result text = RunGpuwhy({"analyze", Rank(0), Rank(1), Rank(2), Rank(3)});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("All ranks: 4 rank(s) of world size 4"), std::string::npos);
  EXPECT_NE(text.out.find("comm.straggler rank 2"), std::string::npos) << text.out.substr(0, 2000);
  EXPECT_NE(text.out.find("Clock alignment (reference rank 0)"), std::string::npos);
}

// The HTML page of a job holds the job's verdict (it showed only the late-arrival heat map), and
// no rank says that stragglers need every rank's trace when every rank was given; with some
// ranks missing, each says which ones the job view compares.
TEST_F(AnalyzeRanksTest, HtmlShowsTheJobVerdictAndRanksKnowTheyAreComplete) {
  Result html = RunGpuwhy({"analyze", Rank(0), Rank(1), Rank(2), Rank(3), "--format", "html"});
  ASSERT_EQ(html.code, 0) << html.err;
  EXPECT_NE(html.out.find("Job diagnosis: all ranks (4 ranks)"), std::string::npos);
  EXPECT_NE(html.out.find("id=\"finding-job-1\""), std::string::npos);
  size_t job = html.out.find("id=\"verdict-job\"");
  size_t straggler = html.out.find("comm.straggler");
  EXPECT_NE(job, std::string::npos);
  EXPECT_LT(job, straggler);
  EXPECT_LT(straggler, html.out.find("id=\"rank-0\""));
  EXPECT_EQ(html.out.find("need every rank"), std::string::npos);
  Result some = RunGpuwhy({"analyze", Rank(0), Rank(1)});
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_NE(some.out.find("2 of 4 ranks given: the job view compares these only"),
            std::string::npos)
      << some.out.substr(0, 3000);
}

TEST_F(AnalyzeRanksTest, SummariesMergeIntoTheSameVerdict) {
  std::vector<std::string> merge = {"analyze", "--format", "json"};
  for (int r = 0; r < 4; ++r) {
    std::string out = dir_ + "/r" + std::to_string(r) + ".summary.json";
    Result s = RunGpuwhy({"analyze", "--summary", "-o", out, Rank(r)});
    ASSERT_EQ(s.code, 0) << s.err;
    merge.push_back(out);
  }
  Result r = RunGpuwhy(merge);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(StragglerTitle(r.out).rfind("rank 2 arrives last", 0), 0u) << StragglerTitle(r.out);
  // Summaries hold no per-rank tables: the ranks array stays empty.
  EXPECT_NE(r.out.find("\"ranks\": []"), std::string::npos);
}

TEST_F(AnalyzeRanksTest, SummaryOfTwoRanksIsAUsageError) {
  Result r = RunGpuwhy({"analyze", "--summary", Rank(0), Rank(1)});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--summary reduces one rank"), std::string::npos) << r.err;
}

TEST_F(AnalyzeRanksTest, MissingAndDuplicatedRanksAreReportedNotFatal) {
  fs::copy_file(Rank(1), dir_ + "/copy_of_rank1.json");
  Result r =
      RunGpuwhy({"analyze", Rank(0), Rank(1), dir_ + "/copy_of_rank1.json", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 1 appears twice"), std::string::npos);
  EXPECT_NE(r.out.find("2 of 4 ranks present; missing: 2-3"), std::string::npos);
}

// The folder gpuwhy.profile writes holds each trace and its own summary beside it: analysing
// the folder counts each rank once (it counted the trace and its summary as two ranks). A
// summary whose trace is elsewhere (the Slurm epilogue's shared folder) is still a rank.
TEST_F(AnalyzeRanksTest, ATraceAndItsOwnSummaryInOneFolderAreOneRank) {
  const std::string profile = dir_ + "/profile";
  fs::create_directories(profile);
  for (int r = 0; r < 2; ++r) {
    std::string trace = profile + "/job.rank" + std::to_string(r) + ".json";
    fs::copy_file(Rank(r), trace);
    Result s = RunGpuwhy({"analyze", "--summary", "-o",
                          profile + "/job.rank" + std::to_string(r) + ".summary.json", trace});
    ASSERT_EQ(s.code, 0) << s.err;
  }
  Result r = RunGpuwhy({"analyze", profile});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("All ranks: 2 rank(s) of world size 4"), std::string::npos)
      << r.out.substr(0, 3000);
  EXPECT_EQ(r.out.find("appears twice"), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("job.rank0.summary.json: this trace's own summary"), std::string::npos);

  // Rank 2's summary, its trace not in the folder: a third rank.
  Result s =
      RunGpuwhy({"analyze", "--summary", "-o", profile + "/job.rank2.summary.json", Rank(2)});
  ASSERT_EQ(s.code, 0) << s.err;
  Result three = RunGpuwhy({"analyze", profile});
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_NE(three.out.find("All ranks: 3 rank(s) of world size 4"), std::string::npos)
      << three.out.substr(0, 3000);
}

}  // namespace analyze_ranks_test
}  // namespace gpuwhy
