#include "mcp/server.h"

#include <sstream>

#include <gtest/gtest.h>

namespace gpuwhy::mcp {
namespace server_test {

namespace dom = simdjson::dom;

// The answer to |line|, parsed (the test fails when there is none).
dom::element Answer(Server& server, dom::parser& parser, std::string_view line) {
  std::optional<std::string> answer = server.Handle(line);
  EXPECT_TRUE(answer.has_value()) << line;
  if (!answer) return parser.parse(std::string_view("{}")).value_unsafe();
  EXPECT_EQ(answer->find('\n'), std::string::npos) << "an answer is one line";
  dom::element root;
  EXPECT_EQ(parser.parse(*answer).get(root), simdjson::SUCCESS) << *answer;
  return root;
}

int64_t ErrorCode(dom::element answer) {
  return answer["error"]["code"].get_int64().value_unsafe();
}

TEST(ServerTest, NegotiatesTheProtocolVersion) {
  Server server(ServerOptions{.version = "9.9"});
  dom::parser parser;
  dom::element same = Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"initialize",
      "params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  EXPECT_EQ(same["result"]["protocolVersion"].get_string().value_unsafe(), "2025-06-18");
  EXPECT_EQ(same["result"]["serverInfo"]["name"].get_string().value_unsafe(), "gpuwhy");
  EXPECT_EQ(same["result"]["serverInfo"]["version"].get_string().value_unsafe(), "9.9");
  EXPECT_TRUE(same["result"]["capabilities"]["tools"].is_object());
  dom::element newest = Answer(server, parser, R"({"jsonrpc":"2.0","id":2,"method":"initialize",
      "params":{"protocolVersion":"1999-01-01","capabilities":{}}})");
  EXPECT_EQ(newest["result"]["protocolVersion"].get_string().value_unsafe(), kProtocolVersions[0]);
  dom::element missing =
      Answer(server, parser, R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{}})");
  EXPECT_EQ(ErrorCode(missing), -32602);
}

TEST(ServerTest, AnswersPingAndIgnoresNotifications) {
  Server server(ServerOptions{});
  dom::parser parser;
  dom::element pong = Answer(server, parser, R"({"jsonrpc":"2.0","id":"p","method":"ping"})");
  EXPECT_EQ(pong["id"].get_string().value_unsafe(), "p");
  EXPECT_EQ(pong["result"].get_object().value_unsafe().size(), 0u);
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","method":"no/such/notification"})"));
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","id":9,"result":{}})"));
}

TEST(ServerTest, ListsEveryToolWithAnObjectSchema) {
  Server server(ServerOptions{});
  dom::parser parser;
  dom::element list = Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  dom::array tools = list["result"]["tools"].get_array().value_unsafe();
  ASSERT_EQ(tools.size(), 6u);
  std::vector<std::string> names;
  for (dom::element tool : tools) {
    names.emplace_back(tool["name"].get_string().value_unsafe());
    EXPECT_FALSE(tool["description"].get_string().value_unsafe().empty());
    EXPECT_EQ(tool["inputSchema"]["type"].get_string().value_unsafe(), "object") << names.back();
    EXPECT_TRUE(tool["inputSchema"]["required"].is_array()) << names.back();
    EXPECT_TRUE(tool["annotations"]["readOnlyHint"].get_bool().value_unsafe()) << names.back();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"analyze", "finding", "capture", "next_page", "diff",
                                             "doctor"}));
}

TEST(ServerTest, ProtocolErrorsAreJsonRpcErrors) {
  Server server(ServerOptions{});
  dom::parser parser;
  EXPECT_EQ(ErrorCode(Answer(server, parser, "{oops")), -32700);
  EXPECT_EQ(ErrorCode(Answer(server, parser, R"({"jsonrpc":"2.0","id":1})")), -32600);
  EXPECT_EQ(ErrorCode(Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"x/y"})")),
            -32601);
  EXPECT_EQ(ErrorCode(Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"tools/call",
      "params":{"name":"no_such_tool","arguments":{}}})")),
            -32602);
  EXPECT_EQ(ErrorCode(Answer(server, parser,
                             R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})")),
            -32602);
  EXPECT_EQ(ErrorCode(Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"tools/call",
      "params":{"name":"analyze","arguments":[1]}})")),
            -32602);
  EXPECT_EQ(ErrorCode(Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"tools/list",
      "params":{"cursor":"x"}})")),
            -32602);
}

TEST(ServerTest, AToolsOwnFailureIsAResultWithIsError) {
  Server server(ServerOptions{});
  dom::parser parser;
  dom::element answer = Answer(server, parser, R"({"jsonrpc":"2.0","id":1,"method":"tools/call",
      "params":{"name":"analyze","arguments":{"paths":["/nonexistent/trace.json"]}}})");
  ASSERT_TRUE(answer["result"].is_object());
  EXPECT_TRUE(answer["result"]["isError"].get_bool().value_unsafe());
  std::string_view text = answer["result"]["content"].at(0)["text"].get_string().value_unsafe();
  EXPECT_NE(text.find("/nonexistent/trace.json"), std::string_view::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string_view::npos) << "one line: " << text;
  dom::element unknown = Answer(server, parser, R"({"jsonrpc":"2.0","id":2,"method":"tools/call",
      "params":{"name":"analyze","arguments":{"paths":["a"],"path":"b"}}})");
  EXPECT_TRUE(unknown["result"]["isError"].get_bool().value_unsafe());
  dom::element missing =
      Answer(server, parser,
             R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"finding"}})");
  EXPECT_TRUE(missing["result"]["isError"].get_bool().value_unsafe());
}

TEST(ServerTest, ServeRefusesAnOversizedMessageAndGoesOn) {
  Server server(ServerOptions{.max_message_bytes = 1024});
  std::string big = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" +
                    std::string(5000, 'x') + "\"}}";
  std::istringstream in(big + "\n\n   \n" + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n" +
                        R"({"jsonrpc":"2.0","method":"notifications/initialized"})" + "\n");
  std::ostringstream out;
  server.Serve(in, out);
  std::istringstream lines(out.str());
  std::string first, second, extra;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, extra)) << "blank lines and notifications get no answer";
  EXPECT_NE(first.find("-32600"), std::string::npos) << first;
  EXPECT_NE(first.find("over 1024 bytes"), std::string::npos) << first;
  EXPECT_EQ(second, R"({"jsonrpc":"2.0","id":2,"result":{}})");
}

// Whatever a client sends, the answer is one line of valid JSON-RPC: a result or an error.
void ExpectWellFormed(Server& server, std::string_view line) {
  std::optional<std::string> answer = server.Handle(line);
  if (!answer) return;  // a notification or a response
  EXPECT_EQ(answer->find('\n'), std::string::npos);
  dom::parser parser;
  dom::element root;
  ASSERT_EQ(parser.parse(*answer).get(root), simdjson::SUCCESS) << *answer;
  EXPECT_EQ(root["jsonrpc"].get_string().value_unsafe(), "2.0");
  EXPECT_TRUE(root["result"].is_object() || root["error"]["code"].is_int64()) << *answer;
}

TEST(ServerTest, HostileMessagesGetWellFormedAnswers) {
  Server server(ServerOptions{});
  const std::string deep(100000, '[');
  for (
      std::string_view line :
      {std::string_view(""), std::string_view("null"), std::string_view("[]"),
       std::string_view("{}"), std::string_view("123"), std::string_view("\"x\""),
       std::string_view(R"({"jsonrpc":"2.0","id":{},"method":"ping"})"),
       std::string_view("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}"),
       std::string_view(R"({"jsonrpc":"2.0","id":99999999999999999999999,"method":"ping"})"),
       std::string_view(
           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze","arguments":{"paths":[1,2]}}})"),
       std::string_view(
           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze","arguments":{"paths":{}}}})"),
       std::string_view(
           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next_page","arguments":{"cursor":"a18446744073709551616p1"}}})"),
       std::string_view(
           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"finding","arguments":{"paths":["x"],"finding_id":"y","rank_index":1e300}}})"),
       std::string_view(deep)}) {
    ExpectWellFormed(server, line);
  }
  uint64_t state = 0x9E3779B97F4A7C15u;  // a fixed seed: the same bytes on every run
  for (int i = 0; i < 300; ++i) {
    std::string bytes = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":)";
    const size_t length = 1 + (state >> 58);
    for (size_t j = 0; j < length; ++j) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      // JSON's punctuation, a letter, a digit, a stray UTF-8 byte and (index 13) a NUL.
      bytes.push_back("{}[]\":,0a-\\ \x80"[(state >> 33) % 14]);
    }
    ExpectWellFormed(server, bytes);
    ExpectWellFormed(server, bytes.substr(bytes.size() / 2));
  }
}

}  // namespace server_test
}  // namespace gpuwhy::mcp
