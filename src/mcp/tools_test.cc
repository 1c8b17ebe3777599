// The tools end to end in-process, on synthetic traces with a known bottleneck and on a
// hand-written node log: what each answer cites is in the JSON report of the same inputs.
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "mcp/server.h"
#include "synth/synth.h"

namespace gpuwhy::mcp {
namespace tools_test {

namespace dom = simdjson::dom;
namespace fs = std::filesystem;

class ToolsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("gpuwhy_mcp_tools_test_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    for (const char* scenario : {"input-bound", "healthy"}) {
      SynthOptions options;
      options.scenario = scenario;
      options.steps = 6;
      ASSERT_TRUE(WriteSyntheticTrace(options, Trace(scenario)).ok());
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Trace(const std::string& scenario) {
    return (*dir_ / (scenario + ".pt.trace.json")).string();
  }

  // tools/call |name| with |arguments| (JSON); the result object.
  dom::element Call(std::string_view name, const std::string& arguments) {
    std::string line = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" +
                       std::string(name) + R"(","arguments":)" + arguments + "}}";
    answers_.push_back(server_.Handle(line).value_or("{}"));
    parsers_.emplace_back(std::make_unique<dom::parser>());
    dom::element root = parsers_.back()->parse(answers_.back()).value_unsafe();
    EXPECT_TRUE(root["result"].is_object()) << answers_.back();
    return root["result"];
  }
  static std::string Text(dom::element result) {
    return std::string(result["content"].at(0)["text"].get_string().value_unsafe());
  }
  static bool IsError(dom::element result) { return result["isError"].get_bool().value_unsafe(); }
  static std::string Paths(const std::string& path) { return R"({"paths":[")" + path + R"("]})"; }

  static fs::path* dir_;
  Server server_{ServerOptions{}};
  std::vector<std::string> answers_;
  std::vector<std::unique_ptr<dom::parser>> parsers_;
};

fs::path* ToolsTest::dir_ = nullptr;

std::set<std::string> Matches(const std::string& text, const std::regex& pattern) {
  std::set<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
    found.insert((*it)[1].str());
  }
  return found;
}

TEST_F(ToolsTest, AnalyzeCitesTheReportsFindingsFirst) {
  dom::element result = Call("analyze", Paths(Trace("input-bound")));
  ASSERT_FALSE(IsError(result)) << Text(result);
  std::string text = Text(result);
  EXPECT_NE(text.find("1. finding input.dataloader_wait"), std::string::npos) << text;
  EXPECT_LT(text.find("finding "), text.find("What is missing")) << "findings come first";
  dom::array findings =
      result["structuredContent"]["ranks"].at(0)["findings"].get_array().value_unsafe();
  std::set<std::string> structured_ids;
  for (dom::element f : findings) {
    structured_ids.insert(std::string(f["id"].get_string().value_unsafe()));
  }
  std::set<std::string> cited = Matches(text, std::regex(R"(\d+\. finding ([a-z_.0-9]+):)"));
  EXPECT_FALSE(cited.empty());
  EXPECT_EQ(cited, structured_ids);
  // Each range cited is one of the structured content's (start..end ns, as the report writes).
  std::set<std::string> ranges = Matches(text, std::regex(R"(range \S+ (\d+\.\.\d+) ns)"));
  EXPECT_FALSE(ranges.empty());
  std::set<std::string> structured_ranges;
  for (dom::element f : findings) {
    dom::array finding_ranges = f["ranges"].get_array().value_unsafe();
    for (dom::element r : finding_ranges) {
      structured_ranges.insert(std::to_string(r["start_ns"].get_int64().value_unsafe()) + ".." +
                               std::to_string(r["end_ns"].get_int64().value_unsafe()));
    }
  }
  for (const std::string& range : ranges) EXPECT_TRUE(structured_ranges.contains(range)) << range;
}

TEST_F(ToolsTest, LongAnswersArePagedAndNextPageReturnsTheRest) {
  Server small(ServerOptions{.page_bytes = 1024});
  dom::parser parser;
  auto call = [&](const std::string& name, const std::string& arguments) {
    std::string answer =
        small
            .Handle(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" + name +
                    R"(","arguments":)" + arguments + "}}")
            .value_or("");
    return std::string(answer);
  };
  std::string first = call("analyze", Paths(Trace("input-bound")));
  dom::element result = parser.parse(first).value_unsafe()["result"];
  std::string text = Text(result);
  ASSERT_NE(text.find("next_page with cursor"), std::string::npos) << text;
  std::string cursor(
      result["structuredContent"]["page"]["next_cursor"].get_string().value_unsafe());
  size_t pages = 1;
  while (!cursor.empty()) {
    std::string next = call("next_page", R"({"cursor":")" + cursor + R"("})");
    dom::element page = parser.parse(next).value_unsafe()["result"];
    ASSERT_FALSE(IsError(page)) << Text(page);
    EXPECT_LE(Text(page).size(), 1024u + 100) << "a page and its footer";
    dom::element next_cursor = page["structuredContent"]["page"]["next_cursor"];
    cursor = next_cursor.is_null() ? "" : std::string(next_cursor.get_string().value_unsafe());
    ++pages;
  }
  EXPECT_GT(pages, 2u);
  dom::element bad =
      parser.parse(call("next_page", R"({"cursor":"a99p2"})")).value_unsafe()["result"];
  EXPECT_TRUE(IsError(bad));
}

TEST_F(ToolsTest, FindingGivesEveryEvidenceLineOfTheReport) {
  ASSERT_FALSE(IsError(Call("analyze", Paths(Trace("input-bound")))));
  dom::element result = Call("finding", R"({"paths":[")" + Trace("input-bound") +
                                            R"("],"finding_id":"input.dataloader_wait"})");
  ASSERT_FALSE(IsError(result)) << Text(result);
  std::string text = Text(result);
  dom::element finding = result["structuredContent"]["finding"];
  EXPECT_EQ(finding["id"].get_string().value_unsafe(), "input.dataloader_wait");
  size_t evidence = 0;
  dom::array evidence_list = finding["evidence"].get_array().value_unsafe();
  for (dom::element e : evidence_list) {
    std::string id(e["id"].get_string().value_unsafe());
    EXPECT_NE(text.find("evidence " + id), std::string::npos) << id << "\n" << text;
    ++evidence;
  }
  EXPECT_GT(evidence, 0u);
  EXPECT_NE(text.find("fix 1: "), std::string::npos) << text;
  dom::element unknown =
      Call("finding", R"({"paths":[")" + Trace("input-bound") + R"("],"finding_id":"no.such"})");
  ASSERT_TRUE(IsError(unknown));
  EXPECT_NE(Text(unknown).find("input.dataloader_wait"), std::string::npos)
      << "the error lists the findings there are: " << Text(unknown);
}

TEST_F(ToolsTest, CaptureNamesTheChecklistsCommands) {
  dom::element result = Call("capture", Paths(Trace("input-bound")));
  ASSERT_FALSE(IsError(result)) << Text(result);
  size_t captures = 0;
  dom::array capture_list = result["structuredContent"]["captures"].get_array().value_unsafe();
  for (dom::element c : capture_list) {
    std::string command(c["command"].get_string().value_unsafe());
    EXPECT_FALSE(command.empty());
    EXPECT_NE(Text(result).find("capture: " + command), std::string::npos) << command;
    EXPECT_NE(c["status"].get_string().value_unsafe(), "assessed");
    ++captures;
  }
  EXPECT_GT(captures, 0u);
  // By a rule: only the items whose rules include it.
  std::string rule;
  for (dom::element c : capture_list) {
    dom::array rules = c["rules"].get_array().value_unsafe();
    if (rules.size() > 0) rule = std::string(rules.at(0).get_string().value_unsafe());
  }
  ASSERT_FALSE(rule.empty());
  dom::element by_rule = Call(
      "capture", R"({"paths":[")" + Trace("input-bound") + R"("],"finding_id":")" + rule + "\"}");
  dom::array kept = by_rule["structuredContent"]["captures"].get_array().value_unsafe();
  EXPECT_GT(kept.size(), 0u);
  for (dom::element c : kept) {
    EXPECT_NE(simdjson::minify(c["rules"]).find("\"" + rule + "\""), std::string::npos);
  }
  dom::element filtered =
      Call("capture", R"({"paths":[")" + Trace("input-bound") + R"("],"section":"no section"})");
  EXPECT_EQ(filtered["structuredContent"]["captures"].get_array().value_unsafe().size(), 0u);
  EXPECT_NE(Text(filtered).find("Nothing to capture"), std::string::npos);
}

TEST_F(ToolsTest, DiffComparesTwoRuns) {
  dom::element result = Call(
      "diff", R"({"base":")" + Trace("input-bound") + R"(","test":")" + Trace("healthy") + R"("})");
  ASSERT_FALSE(IsError(result)) << Text(result);
  EXPECT_EQ(result["structuredContent"]["kind"].get_string().value_unsafe(), "diff");
  EXPECT_NE(Text(result).find("faster"), std::string::npos) << Text(result);
  dom::element missing = Call("diff", R"({"base":")" + Trace("healthy") + R"("})");
  EXPECT_TRUE(IsError(missing));
}

TEST_F(ToolsTest, DoctorReadsNodeLogs) {
  std::string log = std::string(GPUWHY_TEST_DATA) + "/node_logs/dmesg_sxid_fatal.txt";
  dom::element result = Call("doctor", Paths(log));
  ASSERT_FALSE(IsError(result)) << Text(result);
  EXPECT_NE(Text(result).find("1. finding platform."), std::string::npos) << Text(result);
}

TEST_F(ToolsTest, AJobsAnswerPutsTheJobFirstAndStaysWithinItsBound) {
  const fs::path job = *dir_ / "job";
  fs::create_directories(job);
  SynthOptions options;
  options.scenario = "comm-exposed";
  options.steps = 4;
  options.ranks = 4;
  ASSERT_TRUE(WriteSyntheticTrace(options, (job / "job.pt.trace.json").string()).ok());
  const size_t bound = 4096;
  Server small(ServerOptions{.structured_bytes = bound});
  std::string answer =
      small
          .Handle(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze",)"
                  R"("arguments":{"paths":[")" +
                  job.string() + R"("]}}})")
          .value_or("");
  dom::parser parser;
  dom::element result = parser.parse(answer).value_unsafe()["result"];
  ASSERT_FALSE(IsError(result)) << Text(result);
  std::string text = Text(result);
  ASSERT_NE(text.find("== job (cross-rank)"), std::string::npos) << text;
  EXPECT_LT(text.find("== job (cross-rank)"), text.find("== ranks[0]")) << "the job comes first";
  dom::element structured = result["structuredContent"];
  EXPECT_TRUE(structured["cross_rank"]["findings"].is_array());
  const int64_t shown = static_cast<int64_t>(structured["ranks"].get_array().value_unsafe().size());
  EXPECT_EQ(shown + structured["ranks_left_out"].get_int64().value_unsafe(), 4);
  std::string structured_json = simdjson::minify(structured);
  std::string captures_json = simdjson::minify(structured["captures"]);
  EXPECT_LT(structured_json.size() - captures_json.size(), 2 * bound)
      << "a bound plus one finding and one rank's header";
  // The finding tool reaches a job-wide finding by rank_index -1.
  std::string job_finding(
      structured["cross_rank"]["findings"].at(0)["id"].get_string().value_unsafe());
  dom::element detail = Call("finding", R"({"paths":[")" + job.string() + R"("],"finding_id":")" +
                                            job_finding + R"(","rank_index":-1})");
  ASSERT_FALSE(IsError(detail)) << Text(detail);
  EXPECT_EQ(detail["structuredContent"]["rank_index"].get_int64().value_unsafe(), -1);
}

}  // namespace tools_test
}  // namespace gpuwhy::mcp
