#include "mcp/json_rpc.h"

#include <gtest/gtest.h>

namespace gpuwhy::mcp {
namespace json_rpc_test {

ParsedMessage Parse(simdjson::dom::parser& parser, std::string_view line) {
  return ParseRpcMessage(parser, line);
}

TEST(JsonRpcTest, ReadsRequestsNotificationsAndResponses) {
  simdjson::dom::parser parser;
  ParsedMessage request = Parse(parser, R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  ASSERT_TRUE(request.ok);
  EXPECT_EQ(request.message.kind, RpcKind::kRequest);
  EXPECT_EQ(request.message.id_json, "7");
  EXPECT_EQ(request.message.method, "ping");
  ParsedMessage named = Parse(parser, R"({"jsonrpc":"2.0","id":"a\"b","method":"x"})");
  EXPECT_EQ(named.message.id_json, R"("a\"b")");
  ParsedMessage note = Parse(parser, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_TRUE(note.ok);
  EXPECT_EQ(note.message.kind, RpcKind::kNotification);
  ParsedMessage response = Parse(parser, R"({"jsonrpc":"2.0","id":3,"result":{}})");
  ASSERT_TRUE(response.ok);
  EXPECT_EQ(response.message.kind, RpcKind::kResponse);
}

TEST(JsonRpcTest, NamesEachProtocolErrorWithItsCode) {
  simdjson::dom::parser parser;
  ParsedMessage garbage = Parse(parser, "{not json");
  EXPECT_FALSE(garbage.ok);
  EXPECT_EQ(garbage.error.code, RpcErrorCode::kParseError);
  EXPECT_EQ(garbage.message.id_json, "null");
  struct Case {
    std::string_view line;
    std::string_view id;
  };
  for (const Case& c :
       {Case{R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", "null"}, Case{R"("text")", "null"},
        Case{R"({"jsonrpc":"1.0","id":4,"method":"ping"})", "4"},
        Case{R"({"jsonrpc":"2.0","id":5})", "5"},
        Case{R"({"jsonrpc":"2.0","id":6,"method":7})", "6"},
        Case{R"({"jsonrpc":"2.0","id":null,"method":"ping"})", "null"},
        Case{R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", "null"},
        Case{R"({"jsonrpc":"2.0","id":8,"method":"ping","params":3})", "8"}}) {
    ParsedMessage parsed = Parse(parser, c.line);
    EXPECT_FALSE(parsed.ok) << c.line;
    EXPECT_EQ(parsed.error.code, RpcErrorCode::kInvalidRequest) << c.line;
    EXPECT_EQ(parsed.message.id_json, c.id) << c.line;
  }
}

TEST(JsonRpcTest, WritesOneLineAnswers) {
  EXPECT_EQ(RenderRpcResult("1", "{}"), R"({"jsonrpc":"2.0","id":1,"result":{}})");
  std::string error =
      RenderRpcError("\"x\"", {RpcErrorCode::kMethodNotFound, "method not found: a\nb"});
  EXPECT_EQ(
      error,
      R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"method not found: a\nb"}})");
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(JsonRpcTest, AddsAMemberToAnObject) {
  EXPECT_EQ(AddJsonMember("{}", "k", "1"), R"({"k":1})");
  EXPECT_EQ(AddJsonMember(R"({"a":2})", "k", "[3]"), R"({"a":2,"k":[3]})");
}

}  // namespace json_rpc_test
}  // namespace gpuwhy::mcp
