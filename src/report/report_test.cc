// Renderers: text fits the report width and carries the analyses, JSON parses and every
// metric has id/scope/value/unit, odd traces render without crashing.
#include "report/report.h"

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "ingest/importer.h"
#include "report/text_format.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace report_test {

namespace fs = std::filesystem;

RankReport Analyse(const Trace& trace) {
  return RankReport{SummarizeTraceHeader(trace), AnalyzeTrace(trace)};
}

RankReport FromSynth(const std::string& scenario) {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("gpuwhy_report_" + scenario + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "trace.json").string();
  SynthOptions options;
  options.scenario = scenario;
  options.steps = 8;
  EXPECT_TRUE(WriteSyntheticTrace(options, path).ok());
  StatusOr<Trace> trace = ImportTraceFile(path);
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  return Analyse(*trace);
}

// A trace with host work only: every GPU analysis must say why it does not apply.
Trace CpuOnlyTrace() {
  Trace trace;
  trace.metadata.path = "cpu_only.json";
  ThreadId thread = trace.GetOrCreateThread(1, 1);
  CpuSliceTable::Row row;
  row.thread = thread;
  row.start = 1000;
  row.end = 5000;
  row.name = trace.strings.Intern("aten::add");
  row.kind = CpuSliceKind::kOp;
  trace.cpu_slices.Append(row);
  trace.Finalize();
  return trace;
}

void ExpectFitsWidth(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    EXPECT_LE(DisplayWidth(line), kReportWidth) << "line " << number << ": " << line;
  }
}

void ExpectValidJson(const std::string& json, size_t ranks) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json.substr(0, 500);
  EXPECT_EQ(int64_t(doc["schema_version"]), 1);
  EXPECT_EQ(std::string_view(doc["tool"]), "gpuwhy");
  simdjson::dom::array rank_list = doc["ranks"];
  ASSERT_EQ(rank_list.size(), ranks);
  for (simdjson::dom::element rank : rank_list) {
    for (const char* key : {"path", "rank", "metrics", "top_kernels", "idle_gaps", "steps",
                            "import_stats", "not_applicable"}) {
      EXPECT_EQ(rank[key].error(), simdjson::SUCCESS) << key;
    }
    for (simdjson::dom::element metric : rank["metrics"].get_array()) {
      std::string_view id;
      ASSERT_EQ(metric["id"].get(id), simdjson::SUCCESS);
      EXPECT_FALSE(id.empty());
      EXPECT_TRUE(metric["value"].is_double() || metric["value"].is_int64() ||
                  metric["value"].is_null())
          << id;
      std::string_view unit;
      EXPECT_EQ(metric["unit"].get(unit), simdjson::SUCCESS) << id;
      simdjson::dom::object scope;
      ASSERT_EQ(metric["scope"].get(scope), simdjson::SUCCESS) << id;
      for (const char* key : {"rank", "device", "stream", "step"}) {
        EXPECT_EQ(scope[key].error(), simdjson::SUCCESS) << id << " scope." << key;
      }
    }
  }
}

TEST(ReportTest, InputBoundTextShowsDataLoaderWaitAndFitsWidth) {
  std::vector<RankReport> ranks;
  ranks.push_back(FromSynth("input-bound"));
  std::string text = RenderReportText(ranks, {});
  ExpectFitsWidth(text);
  for (const char* expected :
       {"Utilization", "Temporal breakdown", "HTA idle split", "Step breakdown", "dataloader",
        "Idle-gap attribution", "input_wait", "Top kernels", "Launch", "Synchronization & copies",
        "Memory", "Data quality", "Import stats"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_EQ(text.find("nan"), std::string::npos);
}

TEST(ReportTest, JsonParsesAndEveryMetricHasIdScopeValueUnit) {
  std::vector<RankReport> ranks;
  ranks.push_back(FromSynth("input-bound"));
  ranks.push_back(FromSynth("healthy"));
  ASSERT_FALSE(ranks[0].analysis.metrics.all().empty());
  std::vector<ReportFailure> failures{{"bad.json", "bad.json: byte 0: not a trace"}};
  std::string json = RenderReportJson(ranks, failures);
  ExpectValidJson(json, 2);
  EXPECT_NE(json.find("\"input_wait\""), std::string::npos);
  EXPECT_NE(json.find("bad.json: byte 0"), std::string::npos);
  EXPECT_EQ(json, RenderReportJson(ranks, failures)) << "output must be deterministic";
}

TEST(ReportTest, NanMetricsAndAllScopesAreNull) {
  std::vector<RankReport> ranks(1);
  ranks[0].header.path = "x.json";
  ranks[0].analysis.metrics.Add("test.nan", MetricScope::Device(2),
                                std::numeric_limits<double>::quiet_NaN(), unit::kPercent);
  ranks[0].analysis.metrics.Add("test.inf", MetricScope::Rank(),
                                std::numeric_limits<double>::infinity(), unit::kMs);
  std::string json = RenderReportJson(ranks, {});
  ExpectValidJson(json, 1);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(json);
  simdjson::dom::element metric = doc["ranks"].at(0)["metrics"].at(0);
  EXPECT_TRUE(metric["value"].is_null());
  EXPECT_EQ(int64_t(metric["scope"]["device"]), 2);
  EXPECT_TRUE(metric["scope"]["stream"].is_null());
  EXPECT_TRUE(doc["ranks"].at(0)["rank"].is_null());
}

TEST(ReportTest, CpuOnlyTraceSaysWhatDoesNotApply) {
  Trace trace = CpuOnlyTrace();
  std::vector<RankReport> ranks;
  ranks.push_back(Analyse(trace));
  std::string text = RenderReportText(ranks, {});
  ExpectFitsWidth(text);
  EXPECT_NE(text.find("n/a: utilization"), std::string::npos) << text;
  EXPECT_NE(text.find("n/a: kernel statistics"), std::string::npos) << text;
  std::string json = RenderReportJson(ranks, {});
  ExpectValidJson(json, 1);
  EXPECT_NE(json.find("\"analysis\": \"utilization\""), std::string::npos);
}

TEST(ReportTest, ColourOnlyWhenAsked) {
  std::vector<RankReport> ranks;
  ranks.push_back(Analyse(CpuOnlyTrace()));
  EXPECT_EQ(RenderReportText(ranks, {}).find('\x1b'), std::string::npos);
  TextReportOptions options;
  options.colour = TextColour::kOn;
  EXPECT_NE(RenderReportText(ranks, options).find("\x1b[1m"), std::string::npos);
}

TEST(ReportTest, KernelNamesShortenSmartly) {
  using report::ShortenKernelName;
  EXPECT_EQ(ShortenKernelName("void foo(int)", 30), "foo(int)");
  std::string name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, "
      "1>)";
  // The functor tells instantiations apart, so it survives the cut.
  EXPECT_EQ(ShortenKernelName(name, 60), "at::native::vectorized_elementwise_kernel<FillFunctor>");
  EXPECT_EQ(ShortenKernelName(name, 35), "vectorized_elementwis…<FillFunctor>");
  EXPECT_EQ(
      ShortenKernelName("void wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, "
                        "int, int, float const*, int, float*, float const*, kernel_grad_params, "
                        "unsigned long long, int, float, int, int, int, int)",
                        29),
      "wgrad_alg0_engine<…>");
  EXPECT_EQ(
      ShortenKernelName("void at::native::vectorized_elementwise_kernel<4, "
                        "at::native::threshold_kernel_impl<float>(at::TensorIterator&, float, "
                        "float)::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int)",
                        29),
      "vectorized_ele…<threshold_k…>");
  EXPECT_EQ(ShortenKernelName("volta_scudnn_128x64_stridedB_splitK_xregs_large_nn_v1", 29),
            "volta_scudnn_128x64…rge_nn_v1");
  EXPECT_EQ(DisplayWidth(ShortenKernelName(name, 12)), 12u);
  EXPECT_EQ(ShortenKernelName("volta_sgemm_128x64_nn", 29), "volta_sgemm_128x64_nn");
}

TEST(ReportTest, CollidingKernelNamesShowWhereTheyDiffer) {
  std::vector<std::string> names = {
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_kernel",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_kernel",
      "volta_sgemm_128x64_nt"};
  std::vector<std::string> shortened = report::ShortenKernelNames(names, 29);
  EXPECT_EQ(shortened[0], "sm90_xmma_…nt_n_tilesize256x…");
  EXPECT_EQ(shortened[1], "sm90_xmma_…tn_n_tilesize128x…");
  EXPECT_EQ(shortened[2], "volta_sgemm_128x64_nt");
}

TEST(ReportTest, WrappingKeepsUnitsWithTheirNumbers) {
  std::string out;
  // "64.4" fits on the first line, "64.4 %," does not: both move.
  report::Wrapped(out, std::string(90, 'x') + " gemm 64.4 %, attention 21.3 %", 2);
  EXPECT_NE(out.find(" gemm\n    64.4 %, attention 21.3 %\n"), std::string::npos) << out;
}

TEST(ReportTest, NumbersCarryUnits) {
  EXPECT_EQ(report::Ms(12.3456), "12.346 ms");
  EXPECT_EQ(report::Ms(1234.56), "1,234.6 ms");
  EXPECT_EQ(report::Pct(47.63), "47.6 %");
  EXPECT_EQ(report::Duration(850), "850 ns");
  EXPECT_EQ(report::Duration(12'345), "12.3 µs");
  EXPECT_EQ(report::Bytes(1536), "1.50 KiB");
  EXPECT_EQ(report::Offset(2'500'000, 1'000'000), "+1.500 ms");
}

TEST(ReportTest, ResNetWithoutWorkersShowsInputWait) {
  std::string path =
      std::string(GPUWHY_SHARED_DATA) +
      "/kineto/kineto_tb_plugin/2d19c63_resnet50_num_workers_0__worker0.pt.trace.json.gz";
  if (!fs::exists(path)) GTEST_SKIP() << "real trace absent: " << path;
  StatusOr<Trace> trace = ImportTraceFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<RankReport> ranks;
  ranks.push_back(Analyse(*trace));
  std::string text = RenderReportText(ranks, {});
  ExpectFitsWidth(text);
  EXPECT_NE(text.find("input_wait"), std::string::npos);
  EXPECT_NE(text.find("enumerate(DataLoader)"), std::string::npos) << text;
  ExpectValidJson(RenderReportJson(ranks, {}), 1);
}

}  // namespace report_test
}  // namespace gpuwhy
