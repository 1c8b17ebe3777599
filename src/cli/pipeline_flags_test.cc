// --set, --config and --step-range mean the same on every command that runs the pipeline:
// diff, annotate, run and serve honour them as analyze does (and refuse a bad one the same way,
// before anything is read or run).
#include "cli/pipeline_flags.h"

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace pipeline_flags_test {

// Silences the DataLoader rule whatever the share (docs/findings.md).
const std::vector<std::string> kQuietDataLoader = {"--set",
                                                   "input.dataloader_wait.min_step_pct=100",
                                                   "--set", "input.dataloader_wait.high_pct=100"};

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.begin() + 1, more.begin(), more.end());
  return args;
}

// The ids of the findings of every rank of a JSON report (or of a diff's finding list).
std::vector<std::string> FindingIds(const std::string& json) {
  std::vector<std::string> ids;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) return ids;
  auto add = [&](simdjson::dom::element findings) {
    simdjson::dom::array list;
    if (findings.get_array().get(list) != simdjson::SUCCESS) return;
    for (simdjson::dom::element f : list) {
      std::string_view id;
      if (f["id"].get_string().get(id) == simdjson::SUCCESS) ids.emplace_back(id);
    }
  };
  simdjson::dom::array ranks;
  simdjson::dom::element findings;
  if (root["ranks"].get_array().get(ranks) == simdjson::SUCCESS) {
    for (simdjson::dom::element rank : ranks) {
      if (rank["findings"].get(findings) == simdjson::SUCCESS) add(findings);
    }
  }
  if (root["findings"].get(findings) == simdjson::SUCCESS) add(findings);
  return ids;
}

bool Has(const std::vector<std::string>& ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class PipelineFlagsTest : public CliFolderTest {
 protected:
  PipelineFlagsTest() : CliFolderTest("gpuwhy_flags", 6) {}
};

TEST_F(PipelineFlagsTest, AnalyzeIsTheReference) {
  std::string trace = Synth("input-bound");
  Result plain = RunGpuwhy({"analyze", "--format", "json", trace});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  EXPECT_TRUE(Has(FindingIds(plain.out), "input.dataloader_wait")) << plain.out.substr(0, 2000);
  Result quiet = RunGpuwhy(With({"analyze", "--format", "json", trace}, kQuietDataLoader));
  ASSERT_EQ(quiet.code, kExitOk) << quiet.err;
  EXPECT_FALSE(Has(FindingIds(quiet.out), "input.dataloader_wait"));
}

TEST_F(PipelineFlagsTest, DiffDiagnosesTracesWithTheSameCatalog) {
  std::string trace = Synth("input-bound");
  Result plain = RunGpuwhy({"diff", "--format", "json", trace, trace});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  EXPECT_TRUE(Has(FindingIds(plain.out), "input.dataloader_wait")) << plain.out;
  Result quiet = RunGpuwhy(With({"diff", "--format", "json", trace, trace}, kQuietDataLoader));
  ASSERT_EQ(quiet.code, kExitOk) << quiet.err;
  EXPECT_FALSE(Has(FindingIds(quiet.out), "input.dataloader_wait")) << quiet.out;
  // The config file the same way.
  std::string config = Path("quiet.conf");
  std::ofstream(config)
      << "input.dataloader_wait.min_step_pct = 100\ninput.dataloader_wait.high_pct = 100\n";
  Result from_file = RunGpuwhy({"diff", "--config", config, "--format", "json", trace, trace});
  ASSERT_EQ(from_file.code, kExitOk) << from_file.err;
  EXPECT_FALSE(Has(FindingIds(from_file.out), "input.dataloader_wait"));
}

TEST_F(PipelineFlagsTest, AnnotateMarksTheFindingsOfTheSameCatalog) {
  std::string trace = Synth("input-bound");
  Result plain = RunGpuwhy({"annotate", trace, "-o", Path("plain.json")});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  Result quiet = RunGpuwhy(With({"annotate", trace, "-o", Path("quiet.json")}, kQuietDataLoader));
  ASSERT_EQ(quiet.code, kExitOk) << quiet.err;
  EXPECT_NE(ReadAll(Path("plain.json")).find("input.dataloader_wait"), std::string::npos);
  EXPECT_EQ(ReadAll(Path("quiet.json")).find("input.dataloader_wait"), std::string::npos);
}

TEST_F(PipelineFlagsTest, RunDiagnosesTheTraceTheJobWroteWithTheSameCatalog) {
  std::string trace = Synth("input-bound");
  for (bool quiet : {false, true}) {
    std::string dir = Path(quiet ? "quiet" : "plain");
    std::filesystem::create_directories(dir);
    std::vector<std::string> args = {
        "run",      "--interval",         "20", "--trace-dir", dir,   "--format",       "json",
        "--report", dir + "/report.json", "--", "cp",          trace, dir + "/job.json"};
    Result r = RunGpuwhy(quiet ? With(args, kQuietDataLoader) : args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(Has(FindingIds(ReadAll(dir + "/report.json")), "input.dataloader_wait"), !quiet);
  }
}

TEST_F(PipelineFlagsTest, StepRangeChoosesTheStepsDiffCompares) {
  std::string sqlite = Path("job.sqlite");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "healthy", "--steps", "8", "--format", "nsys-sqlite",
                       "-o", sqlite})
                .code,
            kExitOk);
  Result all = RunGpuwhy({"diff", "--format", "json", sqlite, sqlite});
  Result none =
      RunGpuwhy({"diff", "--format", "json", "--step-range", "NoSuchRange", sqlite, sqlite});
  Result zero_grad = RunGpuwhy(
      {"diff", "--format", "json", "--step-range", "Optimizer\\.zero_grad#.*", sqlite, sqlite});
  ASSERT_EQ(all.code, kExitOk) << all.err;
  ASSERT_EQ(none.code, kExitOk) << none.err;
  ASSERT_EQ(zero_grad.code, kExitOk) << zero_grad.err;
  auto median = [](const std::string& json) {
    simdjson::dom::parser parser;
    double v = -1;
    if (parser.parse(json)["step"]["base_median_ms"].get_double().get(v) != simdjson::SUCCESS)
      return -1.0;
    return v;
  };
  // The ranges the flag names are the steps: zero_grad ranges are a sliver of a training step.
  EXPECT_GT(median(all.out), 0);
  EXPECT_LT(median(zero_grad.out), 0.5 * median(all.out)) << all.out << "\n" << zero_grad.out;
  // Ranges that match nothing leave no step range: the steps are then the iterations between
  // optimizer steps, about as long as the ProfilerSteps.
  EXPECT_NEAR(median(none.out), median(all.out), 0.3 * median(all.out)) << all.out << "\n"
                                                                        << none.out;
}

// A bad flag is a usage error on every command, before any input is read or command is run.
TEST_F(PipelineFlagsTest, BadFlagsAreOneLineErrorsEverywhere) {
  std::string trace = Synth("healthy");
  const std::vector<std::vector<std::string>> commands = {
      {"analyze", trace},
      {"diff", trace, trace},
      {"annotate", trace, "-o", Path("out.json")},
      {"run", "--", "touch", Path("ran")},
      {"serve", "--listen", "127.0.0.1:1"},
      {"doctor", "--from", trace}};
  for (const std::vector<std::string>& command : commands) {
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--set", "no.such_rule.x=1"},
          std::vector<std::string>{"--config", Path("missing.conf")}}) {
      Result r = RunGpuwhy(With(command, bad));
      EXPECT_EQ(r.code, kExitUnusable) << command[0] << " " << bad[0];
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command[0] << ": " << r.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(Path("ran")))
      << "run started the command despite a bad --set";
  for (const std::string command : {"analyze", "diff", "annotate", "run", "info"}) {
    std::vector<std::string> args = {command, "--step-range", "(unclosed", trace};
    if (command == "run") args = {"run", "--step-range", "(unclosed", "--", "true"};
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitUnusable) << command;
    EXPECT_NE(r.err.find("not a regular expression"), std::string::npos)
        << command << ": " << r.err;
  }
}

}  // namespace pipeline_flags_test
}  // namespace gpuwhy
