// The JSON report against its documented schema, docs/report-schema.json. A small validator
// for the subset of JSON Schema (draft 2020-12) the schema uses: type, enum, required,
// properties, additionalProperties (bool or schema), items and local $ref. Any other keyword
// fails the test, so the schema cannot silently outgrow what is checked here.
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "diagnose/cross_rank_rules.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"
#include "ingest/ncu/ncu_csv_importer.h"
#include "report/cross_rank_report.h"
#include "report/report.h"
#include "report/report_schema_validator.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace report_schema_test {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;
using report_schema::SchemaValidator;

const std::string kSchemaPath = GPUWHY_REPORT_SCHEMA;
const std::string kData = GPUWHY_SHARED_DATA;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

RankReport Report(const Trace& trace) {
  RankReport rank{SummarizeTraceHeader(trace), AnalyzeTrace(trace), {}};
  rank.diagnosis = Diagnose(trace, rank.analysis);
  return rank;
}

class ReportSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_text_ = ReadFile(kSchemaPath);
    ASSERT_FALSE(schema_text_.empty()) << "cannot read " << kSchemaPath;
    ASSERT_EQ(schema_parser_.parse(schema_text_).get(schema_), simdjson::SUCCESS);
  }
  // Validates |json|; returns the number of findings in it, for the caller's checks.
  size_t ExpectValid(const std::string& json, const std::string& what) {
    dom::parser parser;
    dom::element doc;
    EXPECT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << what;
    if (doc.is_null()) return 0;
    SchemaValidator validator(schema_);
    std::vector<std::string> errors = validator.Validate(doc);
    for (const std::string& e : errors) ADD_FAILURE() << what << ": " << e;
    size_t findings = 0;
    for (dom::element rank : doc["ranks"].get_array())
      findings += rank["findings"].get_array().size();
    return findings;
  }
  std::string schema_text_;
  dom::parser schema_parser_;
  dom::element schema_;
};

TEST_F(ReportSchemaTest, ValidatorRejectsWhatTheSchemaForbids) {
  SchemaValidator validator(schema_);
  dom::parser parser;
  auto errors_of = [&](const char* json) {
    dom::element doc = parser.parse(std::string_view(json));
    return validator.Validate(doc).size();
  };
  EXPECT_EQ(errors_of(R"({"schema_version":1,"tool":"gpuwhy","ranks":[],"errors":[]})"), 0u);
  EXPECT_GT(errors_of(R"({"schema_version":2,"tool":"gpuwhy","ranks":[],"errors":[]})"), 0u);
  EXPECT_GT(errors_of(R"({"schema_version":1,"tool":"gpuwhy","ranks":[]})"), 0u);
  EXPECT_GT(errors_of(R"({"schema_version":1,"tool":"gpuwhy","ranks":[],"errors":[],"x":1})"), 0u);
  EXPECT_GT(errors_of(R"({"schema_version":1,"tool":"gpuwhy","ranks":[{}],"errors":[]})"), 0u);
  EXPECT_GT(errors_of(R"({"schema_version":"1","tool":"gpuwhy","ranks":[],"errors":[]})"), 0u);
}

TEST_F(ReportSchemaTest, EverySynthScenarioMatchesTheSchema) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("gpuwhy_report_schema_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::vector<RankReport> ranks;
  for (const std::string& scenario : ScenarioNames()) {
    std::string path = (dir / (scenario + ".json")).string();
    SynthOptions options;
    options.scenario = scenario;
    options.steps = 6;
    ASSERT_TRUE(WriteSyntheticTrace(options, path).ok()) << scenario;
    StatusOr<Trace> trace = ImportTraceFile(path);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    RankReport rank = Report(*trace);
    std::vector<RankReport> one;
    one.push_back(rank);
    size_t findings = ExpectValid(RenderReportJson(one, {}), scenario);
    if (scenario != "healthy") {
      EXPECT_GT(findings, 0u) << scenario;
    }
    ranks.push_back(std::move(rank));
  }
  // All ranks in one report, with an unusable input.
  std::vector<ReportFailure> failures = {{"missing.json", "missing.json: no such file"}};
  ExpectValid(RenderReportJson(ranks, failures), "all scenarios");
}

// An Nsight Systems export with GPU_METRICS: the gpu_metrics object and the rule's finding.
TEST_F(ReportSchemaTest, SampledGpuActivityMatchesTheSchema) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("gpuwhy_report_gpu_metrics_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "small-grids.sqlite").string();
  SynthOptions options;
  options.scenario = "small-grids";
  options.steps = 6;
  options.format = SynthFormat::kNsysSqlite;
  options.gpu_metrics = true;
  ASSERT_TRUE(WriteSyntheticTrace(options, path).ok());
  StatusOr<Trace> trace = ImportTraceFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<RankReport> one;
  one.push_back(Report(*trace));
  ASSERT_TRUE(one[0].analysis.gpu_metrics.valid);
  const std::string json = RenderReportJson(one, {});
  ExpectValid(json, "small-grids with GPU_METRICS");
  EXPECT_NE(json.find("\"gpu_metrics\""), std::string::npos);
  EXPECT_NE(json.find("nsys GPU_METRICS (sampled)"), std::string::npos);
  EXPECT_NE(json.find("compute.busy_not_efficient"), std::string::npos);
}

TEST_F(ReportSchemaTest, RealTracesMatchTheSchema) {
  const std::vector<std::string> paths = {
      kData + "/kineto/kineto_tb_plugin/2d19c63_resnet50_num_workers_0__worker0.pt.trace.json.gz",
      kData + "/kineto/hta/nccl_parser_config_nccl_data.json.gz",
      kData + "/kineto/tracelens/h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
      kData + "/kineto/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
      kData + "/kineto/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz",
      kData + "/kineto/param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json",
  };
  int checked = 0;
  for (const std::string& path : paths) {
    if (!fs::exists(path)) continue;
    StatusOr<Trace> trace = ImportTraceFile(path);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    std::vector<RankReport> one;
    one.push_back(Report(*trace));
    ExpectValid(RenderReportJson(one, {}), fs::path(path).filename().string());
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no real traces under " << kData;
}

// A trace with an Nsight Compute export beside it: its top kernels carry their measured roofline
// class in the JSON (the text report shows the same table), and the object matches the schema.
TEST_F(ReportSchemaTest, KernelsJoinedToAnNcuExportCarryTheirClass) {
  const fs::path ncu = fs::path(GPUWHY_TEST_DATA) / "ncu" / "modern_details.ncu.csv";
  StatusOr<KernelProfile> profile = ImportNcuCsv(ncu.string());
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const std::string add =
      "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char *, (int)3>>(int, T2, T3)";
  std::string events = R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,)"
                       R"("tid":1,"ts":0,"dur":1000})";
  for (int i = 0; i < 4; ++i) {
    events +=
        fmt::format(R"(,{{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":7,"ts":{},"dur":150,)"
                    R"("args":{{"device":0,"stream":7,"grid":[20736,1,1],"block":[256,1,1]}}}})",
                    add, 100 + 200 * i);
  }
  const fs::path trace_path =
      fs::path(::testing::TempDir()) / ("gpuwhy_ncu_join_" + std::to_string(getpid()) + ".json");
  std::ofstream(trace_path) << R"({"traceEvents":[)" << events << "]}";
  StatusOr<Trace> trace = ImportTraceFile(trace_path.string());
  fs::remove(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  AnalysisOptions options;
  options.kernel_profiles = std::span<const KernelProfile>(&*profile, 1);
  std::vector<RankReport> one;
  one.push_back({SummarizeTraceHeader(*trace), AnalyzeTrace(*trace, options), {}});
  const std::string json = RenderReportJson(one, {});
  ExpectValid(json, "ncu join");
  dom::parser parser;
  dom::element joined = parser.parse(json)["ranks"].at(0)["profiled_kernels"];
  EXPECT_EQ(int64_t(joined["exports"]), 1);
  dom::element top = joined["top"].at(0);
  EXPECT_EQ(std::string_view(top["match"]), "name and launch shape");
  EXPECT_EQ(std::string_view(top["roofline_class"]), "memory_bound");
  EXPECT_NEAR(double(top["memory_pct"]), 91.37, 0.01);
  EXPECT_NEAR(double(top["time_pct"]), 100.0, 0.01);
}

TEST_F(ReportSchemaTest, CrossRankReportMatchesTheSchema) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("gpuwhy_cross_rank_schema_" + std::to_string(getpid()));
  fs::create_directories(dir);
  SynthOptions options;
  options.scenario = "comm-exposed";
  options.steps = 4;
  options.ranks = 3;
  options.slow_rank = 2;
  options.slow_by_pct = 25;
  SynthSummary written;
  ASSERT_TRUE(WriteSyntheticTrace(options, (dir / "job.json").string(), &written).ok());
  std::vector<RankReport> ranks;
  std::vector<RankSummary> summaries;
  for (const std::string& path : written.trace_paths) {
    StatusOr<Trace> trace = ImportTraceFile(path);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    ranks.push_back(Report(*trace));
    summaries.push_back(SummarizeRank(*trace, ranks.back().analysis));
  }
  CrossRankReport job;
  job.result = AnalyzeCrossRank(summaries, {});
  job.diagnosis = DiagnoseCrossRank(job.result);
  std::string json = RenderReportJson(ranks, {}, 10, &job);
  ExpectValid(json, "cross-rank");
  dom::parser parser;
  dom::element doc = parser.parse(json);
  std::string straggler;
  for (dom::element f : doc["cross_rank"]["diagnosis"]["findings"].get_array()) {
    if (std::string_view(f["id"].get_string().value()) == "comm.straggler")
      straggler = f["title"].get_string().value();
  }
  EXPECT_EQ(straggler.rfind("rank 2 arrives last", 0), 0u) << straggler;
  EXPECT_EQ(doc["cross_rank"]["stragglers"].at(0)["rank"].get_int64().value(), 2);
  EXPECT_EQ(doc["cross_rank"]["collectives"].get_array().size(), 4u);
  fs::remove_all(dir);
}

}  // namespace report_schema_test
}  // namespace gpuwhy
