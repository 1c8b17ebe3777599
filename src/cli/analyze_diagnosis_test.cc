// `gpuwhy analyze` as a verdict: the diagnosis prints first, --format json|md, --fail-on
// exit codes, --set / --config overrides (bad ones are one-line errors, exit 2), and
// `gpuwhy demo` runs the diagnosis on its synthetic trace.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli/cli.h"
#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace analyze_diagnosis_test {

namespace fs = std::filesystem;

const std::string kResNet0 = std::string(GPUWHY_SHARED_DATA) +
                             "/kineto/kineto_tb_plugin/"
                             "2d19c63_resnet50_num_workers_0__worker0.pt.trace.json.gz";

// The first line of the report that starts a finding (" 1. SEVERITY id ...").
std::string FirstFindingLine(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(" 1. ")) return line;
  }
  return "";
}

class AnalyzeDiagnosisTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = MakeScratchDir("gpuwhy_diagnosis");
    for (const char* scenario : {"healthy", "input-bound"}) {
      Result r = RunGpuwhy({"synth", "--scenario", scenario, "--steps", "6", "-o", Path(scenario)});
      ASSERT_EQ(r.code, kExitOk) << r.err;
    }
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string Path(const std::string& scenario) {
    return (fs::path(dir_) / (scenario + ".json")).string();
  }
  static inline std::string dir_;
};

TEST_F(AnalyzeDiagnosisTest, DiagnosisComesBeforeTheTables) {
  Result r = RunGpuwhy({"analyze", Path("input-bound")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  size_t diagnosis = r.out.find("\nDiagnosis:");
  size_t checklist = r.out.find("\nChecklist:");
  size_t tables = r.out.find("\nUtilization");
  ASSERT_NE(diagnosis, std::string::npos) << r.out;
  EXPECT_LT(diagnosis, checklist);
  EXPECT_LT(checklist, tables);
  EXPECT_NE(FirstFindingLine(r.out).find("input.dataloader_wait"), std::string::npos) << r.out;
}

TEST_F(AnalyzeDiagnosisTest, FailOnExitCodes) {
  EXPECT_EQ(RunGpuwhy({"analyze", "--fail-on", "high", Path("healthy")}).code, kExitOk);
  EXPECT_EQ(RunGpuwhy({"analyze", "--fail-on", "high", Path("input-bound")}).code, kExitFindings);
  EXPECT_EQ(RunGpuwhy({"analyze", Path("input-bound")}).code, kExitOk);
  // Unusable input wins over findings.
  Result r = RunGpuwhy({"analyze", "--fail-on", "low", Path("input-bound"), Path("missing")});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_EQ(RunGpuwhy({"analyze", "--fail-on", "severe", Path("healthy")}).code, kExitUnusable);
}

TEST_F(AnalyzeDiagnosisTest, ResNetWithoutWorkers) {
  if (!fs::exists(kResNet0)) GTEST_SKIP() << "no " << kResNet0;
  Result r = RunGpuwhy({"analyze", "--fail-on", "high", kResNet0});
  EXPECT_EQ(r.code, kExitFindings) << r.err;
  EXPECT_NE(FirstFindingLine(r.out).find("input.dataloader_wait"), std::string::npos)
      << FirstFindingLine(r.out);
}

TEST_F(AnalyzeDiagnosisTest, OverridesAndConfigFile) {
  // Raising the DataLoader threshold above any share silences the rule.
  Result quiet = RunGpuwhy({"analyze", "--set", "input.dataloader_wait.min_step_pct=100", "--set",
                            "input.dataloader_wait.high_pct=100", Path("input-bound")});
  ASSERT_EQ(quiet.code, kExitOk) << quiet.err;
  EXPECT_EQ(FirstFindingLine(quiet.out).find("input.dataloader_wait"), std::string::npos);
  std::string config = (fs::path(dir_) / "rules.conf").string();
  std::ofstream(config)
      << "# quiet the DataLoader rule\ninput.dataloader_wait.min_step_pct = 100\n";
  Result from_file = RunGpuwhy({"analyze", "--config", config, Path("input-bound")});
  ASSERT_EQ(from_file.code, kExitOk) << from_file.err;
  EXPECT_EQ(FirstFindingLine(from_file.out).find("input.dataloader_wait"), std::string::npos);
  // --set wins over the file.
  Result both = RunGpuwhy({"analyze", "--config", config, "--set",
                           "input.dataloader_wait.min_step_pct=5", Path("input-bound")});
  EXPECT_NE(FirstFindingLine(both.out).find("input.dataloader_wait"), std::string::npos);
}

TEST_F(AnalyzeDiagnosisTest, BadOverridesAreOneLineErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"analyze", "--set", "no.such_rule.x=1", Path("healthy")},
        std::vector<std::string>{"analyze", "--set", "input.dataloader_wait.nope=1",
                                 Path("healthy")},
        std::vector<std::string>{"analyze", "--set", "input.dataloader_wait.min_step_pct=abc",
                                 Path("healthy")},
        std::vector<std::string>{"analyze", "--config", Path("missing.conf"), Path("healthy")}}) {
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitUnusable) << args[2];
    EXPECT_TRUE(r.out.empty()) << args[2];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.err.starts_with("gpuwhy: ")) << r.err;
  }
}

TEST_F(AnalyzeDiagnosisTest, JsonAndMarkdownFormats) {
  Result json = RunGpuwhy({"analyze", "--format", "json", Path("input-bound")});
  ASSERT_EQ(json.code, kExitOk) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS);
  std::string_view id = doc["ranks"].at(0)["findings"].at(0)["id"];
  EXPECT_EQ(id, "input.dataloader_wait");
  std::string md_path = (fs::path(dir_) / "report.md").string();
  Result md = RunGpuwhy({"analyze", "--format", "md", "-o", md_path, Path("input-bound")});
  ASSERT_EQ(md.code, kExitOk) << md.err;
  EXPECT_TRUE(md.out.empty());
  std::ifstream in(md_path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(text.starts_with("# gpuwhy report")) << text.substr(0, 200);
  EXPECT_NE(text.find("`input.dataloader_wait`"), std::string::npos);
}

TEST_F(AnalyzeDiagnosisTest, DemoRunsTheDiagnosis) {
  Result r = RunGpuwhy({"demo"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("SYNTHETIC"), std::string::npos);
  EXPECT_LT(r.out.find("SYNTHETIC"), r.out.find("Diagnosis:"));
  EXPECT_NE(FirstFindingLine(r.out).find("input.dataloader_wait"), std::string::npos) << r.out;
}

}  // namespace analyze_diagnosis_test
}  // namespace gpuwhy
