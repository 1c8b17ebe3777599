// End to end on `gpuwhy synth --scenario comm-exposed --ranks 8 --slow-rank R --slow-by PCT`:
// the generator knows every rank's true arrival at every collective and each clock's offset
// (truth file); the analysis sees only the traces. The straggler must be found with its
// cause, its mean lateness within 10% of the truth, and the offsets recovered.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>

#include "analyze/analysis.h"
#include "base/file_input.h"
#include "ingest/importer.h"
#include "ranks/cross_rank.h"
#include "ranks/summary_json.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace cross_rank_synth_test {

namespace fs = std::filesystem;

std::string ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "gpuwhy_ranks_XXXXXX").string();
  return ::mkdtemp(pattern.data());
}

RankSummary Summarize(const std::string& path) {
  StatusOr<Trace> trace = ImportTraceFile(path);
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  if (!trace.ok()) return {};
  TraceAnalysis analysis = AnalyzeTrace(*trace);
  return SummarizeRank(*trace, analysis);
}

struct Job {
  std::vector<RankSummary> ranks;
  std::string truth;
};

Job Generate(int ranks, int slow, double pct, int steps) {
  std::string dir = ScratchDir();
  SynthOptions options;
  options.scenario = "comm-exposed";
  options.ranks = ranks;
  options.steps = steps;
  options.slow_rank = slow;
  options.slow_by_pct = pct;
  SynthSummary summary;
  std::string out = dir + "/job.json";
  Status status = WriteSyntheticTrace(options, out, &summary);
  EXPECT_TRUE(status.ok()) << status.message();
  Job job;
  for (const std::string& path : summary.trace_paths) job.ranks.push_back(Summarize(path));
  StatusOr<std::string> truth = ReadWholeFile(summary.truth_path);
  if (truth.ok()) job.truth = *truth;
  fs::remove_all(dir);
  return job;
}

class SlowRankTest : public ::testing::TestWithParam<std::tuple<int, double>> {};

TEST_P(SlowRankTest, FindsTheStragglerItsCauseAndDelay) {
  auto [slow, pct] = GetParam();
  Job job = Generate(8, slow, pct, 6);
  ASSERT_EQ(job.ranks.size(), 8u);
  simdjson::dom::parser parser;
  simdjson::dom::element truth;
  ASSERT_EQ(parser.parse(job.truth).get(truth), simdjson::SUCCESS);
  double truth_late = truth["straggler"]["mean_late_ns"].get_double().value();
  int64_t truth_late_count = truth["straggler"]["late_count"].get_int64().value();
  ASSERT_GT(truth_late, 0);

  CrossRankResult r = AnalyzeCrossRank(job.ranks, {});
  ASSERT_FALSE(r.stragglers.empty());
  const StragglerStats& s = r.stragglers.front();
  EXPECT_EQ(s.rank, slow);
  EXPECT_EQ(s.cause, "compute");
  EXPECT_EQ(s.late_count, truth_late_count);
  EXPECT_NEAR(static_cast<double>(s.mean_late_ns), truth_late, 0.10 * truth_late);
  // Same kernels, same draws, scaled by the injected slowdown.
  EXPECT_NEAR(s.same_kernels_ratio, 1 + pct / 100, 0.01);
  // Nobody else is decisively late.
  for (size_t i = 1; i < r.stragglers.size(); ++i)
    EXPECT_EQ(r.stragglers[i].late_count, 0) << r.stragglers[i].rank;

  // Clock offsets: truth per_rank[].clock_offset_ns, relative to rank 0 (the reference).
  simdjson::dom::array per_rank = truth["per_rank"].get_array().value();
  size_t i = 0;
  for (simdjson::dom::element rank : per_rank) {
    int64_t offset = rank["clock_offset_ns"].get_int64().value();
    ASSERT_TRUE(r.clocks[i].aligned);
    EXPECT_NEAR(static_cast<double>(r.clocks[i].offset_ns), static_cast<double>(offset),
                static_cast<double>(r.clocks[i].uncertainty_ns) + 1000.0)
        << "rank " << i;
    ++i;
  }
  // One exposed all-reduce per step, all 8 ranks matched.
  EXPECT_EQ(r.collectives.size(), 6u);
  for (const MatchedCollective& m : r.collectives) {
    EXPECT_EQ(m.arrivals.size(), 8u);
    EXPECT_EQ(m.late_rank, slow);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, SlowRankTest,
                         ::testing::Values(std::make_tuple(3, 20.0), std::make_tuple(0, 8.0),
                                           std::make_tuple(7, 50.0)));

TEST(SlowRankTest, HealthyJobHasNoSignificantStraggler) {
  Job job = Generate(4, 1, 0.001, 4);  // 0.001%: a slowdown below every threshold
  CrossRankResult r = AnalyzeCrossRank(job.ranks, {});
  for (const StragglerStats& s : r.stragglers) EXPECT_LT(s.mean_late_ns, 100 * kNsPerUs) << s.rank;
}

TEST(SlowRankTest, SummariesRoundTripGiveTheSameVerdict) {
  Job job = Generate(4, 2, 30, 3);
  std::vector<RankSummary> reread;
  for (const RankSummary& s : job.ranks) {
    StatusOr<RankSummary> back = ParseRankSummaryJson(RenderRankSummaryJson(s), s.path);
    ASSERT_TRUE(back.ok()) << back.status().message();
    reread.push_back(std::move(*back));
  }
  CrossRankResult direct = AnalyzeCrossRank(job.ranks, {});
  CrossRankResult merged = AnalyzeCrossRank(reread, {});
  ASSERT_FALSE(merged.stragglers.empty());
  EXPECT_EQ(merged.stragglers.front().rank, direct.stragglers.front().rank);
  EXPECT_EQ(merged.stragglers.front().mean_late_ns, direct.stragglers.front().mean_late_ns);
  EXPECT_EQ(merged.collectives.size(), direct.collectives.size());
}

}  // namespace cross_rank_synth_test
}  // namespace gpuwhy
