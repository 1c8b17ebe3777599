// The HTML report as text: trace strings are escaped everywhere, the sections and charts are
// there, the drawn size is bounded, and several ranks get the per-rank view.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "report/cross_rank_report.h"
#include "report/html_test_util.h"
#include "report/html_writer.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace html_report_test {

namespace fs = std::filesystem;
using namespace html_test;  // NOLINT

size_t Occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string ScratchDir() {
  fs::path dir = fs::temp_directory_path() / ("gpuwhy_html_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir.string();
}

std::string SynthReport(const std::string& scenario, int steps, int ranks = 1) {
  std::string path = ScratchDir() + "/" + scenario + std::to_string(steps) + ".json";
  SynthOptions options;
  options.scenario = scenario;
  options.steps = steps;
  options.ranks = ranks;
  EXPECT_TRUE(WriteSyntheticTrace(options, path).ok());
  return HtmlReportOf(path);
}

TEST(HtmlEscapeTest, EveryMetacharacterBecomesAnEntity) {
  EXPECT_EQ(report::html::Escape(R"(<a href="x" title='y'>&amp;</a>)"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
  EXPECT_EQ(report::html::Escape("plain µs – text"), "plain µs – text");
}

TEST(HtmlReportTest, HostileNamesAreEscapedEverywhere) {
  std::string path = ScratchDir() + "/hostile.json";
  WriteFile(path, HostileTrace());
  std::string html = HtmlReportOf(path);
  ASSERT_NE(html.find("<!DOCTYPE html>"), std::string::npos) << html.substr(0, 200);
  // The names reach the page (kernel table, device header, gap pieces)...
  EXPECT_NE(html.find(report::html::Escape(kScriptName)), std::string::npos);
  EXPECT_NE(html.find(report::html::Escape(kImgName)), std::string::npos);
  EXPECT_NE(html.find(report::html::Escape(kAmpName)), std::string::npos);
  // ...but never raw: the only script element is the page's own, and no <img> exists.
  EXPECT_EQ(html.find(kScriptName), std::string::npos);
  EXPECT_EQ(html.find(kImgName), std::string::npos);
  EXPECT_EQ(html.find(kAmpName), std::string::npos);
  EXPECT_EQ(Occurrences(html, "<script"), 1u);
  EXPECT_EQ(Occurrences(html, "<img"), 0u);
  EXPECT_EQ(Occurrences(html, "onerror=\""), 0u);
  // Every quote inside a tag belongs to an attribute of ours: an escaped name never closes one.
  EXPECT_EQ(html.find("data-pwned'"), std::string::npos);
}

TEST(HtmlReportTest, InputBoundTraceHasTheVerdictAndEveryChart) {
  std::string html = SynthReport("input-bound", 12);
  const char* expected = ScenarioExpectedFinding("input-bound");
  ASSERT_NE(expected, nullptr);
  EXPECT_NE(html.find(std::string("<code class=\"fid\">") + expected + "</code>"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"finding-0-1\""), std::string::npos);
  for (const char* title :
       {"Diagnosis", "Step time breakdown", "GPU utilization over time", "Idle-gap causes",
        "Kernels", "Checklist", "Import stats and data quality"}) {
    EXPECT_NE(html.find(std::string("<h2>") + title + "</h2>"), std::string::npos) << title;
  }
  // Step bars, one utilization chart per device, idle causes, histogram.
  EXPECT_GE(Occurrences(html, "<svg"), 4u);
  EXPECT_NE(html.find("idle: input_wait"), std::string::npos);
  EXPECT_NE(html.find("under 10 µs"), std::string::npos);
  // Gaps, kernels and what was live at the memory peak.
  EXPECT_EQ(Occurrences(html, "<table class=\"sortable\">"), 3u);
  EXPECT_NE(html.find("<h2>Memory timeline</h2>"), std::string::npos);
  // No network: no URL anywhere but the SVG namespace-free inline markup.
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
}

// The Kernels section says what the launch arguments estimate and why FLOPs are missing.
TEST(HtmlReportTest, KernelsSectionCarriesTheEfficiencyEstimates) {
  std::string html = SynthReport("input-bound", 6);
  EXPECT_NE(html.find("<p>grid fill (estimated from Kineto&#39;s launch arguments"),
            std::string::npos);
  EXPECT_NE(html.find("n/a: FLOPs: matrix-multiply ops carry neither shapes nor flops"),
            std::string::npos);
}

TEST(HtmlReportTest, CommunicationSectionForCollectives) {
  std::string html = SynthReport("comm-exposed", 8);
  EXPECT_NE(html.find("<h2>Communication</h2>"), std::string::npos);
  EXPECT_NE(html.find("Bus bandwidth per collective"), std::string::npos);
}

// Steps drawn are capped and time is bucketed: 20x the steps is nowhere near 20x the page.
TEST(HtmlReportTest, SizeIsBoundedWhateverTheTraceLength) {
  std::string small = SynthReport("healthy", 20);
  std::string large = SynthReport("healthy", 400);
  EXPECT_NE(large.find("first 200 of"), std::string::npos);
  EXPECT_LT(large.size(), 2 * small.size() + 100000) << small.size() << " vs " << large.size();
  EXPECT_LT(large.size(), 5u << 20);
}

TEST(HtmlReportTest, SeveralRanksGetThePerRankView) {
  std::string path = ScratchDir() + "/ranks.json";
  SynthOptions options;
  options.scenario = "comm-exposed";
  options.steps = 6;
  options.ranks = 2;
  ASSERT_TRUE(WriteSyntheticTrace(options, path).ok());
  std::vector<RankReport> ranks;
  for (const std::string& file : SyntheticTracePaths(options, path)) {
    StatusOr<Trace> trace = ImportTraceFile(file);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    RankReport rank{SummarizeTraceHeader(*trace), AnalyzeTrace(*trace), {}};
    rank.diagnosis = Diagnose(*trace, rank.analysis);
    ranks.push_back(std::move(rank));
  }
  ASSERT_EQ(ranks.size(), 2u);
  std::string html = RenderReportHtml(ranks, {});
  EXPECT_NE(html.find("<h2>Step time per rank</h2>"), std::string::npos);
  EXPECT_NE(html.find("id=\"rank-0\""), std::string::npos);
  EXPECT_NE(html.find("id=\"rank-1\""), std::string::npos);
}

// The heat map draws what the cross-rank analysis matched: one row per rank, one cell per
// collective, the late rank's cell darkest, names in tooltips escaped.
TEST(HtmlReportTest, LateArrivalHeatMapFromTheCrossRankResult) {
  CrossRankReport job;
  job.result.rank_count = 2;
  job.result.ranks.resize(2);
  job.result.ranks[0].rank = 0;
  job.result.ranks[1].rank = 1;
  for (int c = 0; c < 3; ++c) {
    MatchedCollective m;
    m.step = 7;
    m.kind = "all_reduce<&>";
    m.ordinal = c;
    m.first_arrival = 1000 * c;
    TimeNs late = c == 1 ? 500'000 : 2'000;  // rank 1 is 500 µs late at the second one
    m.arrivals = {{0, m.first_arrival, m.first_arrival + 10, 0, 0, 0, 0},
                  {1, m.first_arrival + late, m.first_arrival + late + 10, 0, 0, 0, 0}};
    m.late_rank = 1;
    job.result.collectives.push_back(m);
  }
  std::vector<RankReport> ranks(2);
  std::string html = RenderReportHtml(ranks, {}, &job);
  EXPECT_NE(html.find("<h2>Late arrival per collective</h2>"), std::string::npos);
  EXPECT_EQ(Occurrences(html, "<rect class=\"cell\""), 6u);
  EXPECT_NE(
      html.find(
          "rank 1, step 7, all_reduce&lt;&amp;&gt; #1: +500.0 µs after the first (last to arrive)"),
      std::string::npos);
  EXPECT_NE(html.find("fill-opacity=\"1.000\""),
            std::string::npos);  // the 500 µs cell is the maximum
  EXPECT_EQ(RenderReportHtml(ranks, {}).find("Late arrival"), std::string::npos);
}

}  // namespace html_report_test
}  // namespace gpuwhy
