// JSON-RPC 2.0 as MCP uses it: one message is parsed into a request, a notification or a
// client's response, and every answer is written as one line (no embedded newline, as the
// stdio transport requires). Errors of the protocol itself are JSON-RPC errors with the
// standard codes; a tool's own failure is not one of them (tool_result.h).
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>

namespace gpuwhy::mcp {

enum class RpcErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
};

struct RpcError {
  RpcErrorCode code = RpcErrorCode::kInternalError;
  std::string message;
};

enum class RpcKind {
  kRequest,       // has an id and a method: answered
  kNotification,  // a method without an id: never answered
  kResponse,      // a client's answer to a server request (this server sends none): ignored
};

// One parsed message. |params| points into the parser that parsed it.
struct RpcMessage {
  RpcKind kind = RpcKind::kRequest;
  std::string id_json;  // the id as JSON text ("7", "\"a\""); "null" when there is none
  std::string method;
  bool has_params = false;
  simdjson::dom::element params;
};

// Parses |line| (one message). Fails with kParseError when it is not JSON and with
// kInvalidRequest when it is not a JSON-RPC 2.0 message (|id_json| is then the id when one
// could be read, for the error response, else "null").
struct ParsedMessage {
  RpcMessage message;
  bool ok = false;
  RpcError error;
};
ParsedMessage ParseRpcMessage(simdjson::dom::parser& parser, std::string_view line);

// {"jsonrpc":"2.0","id":ID,"result":RESULT} with |result_json| one line of JSON.
std::string RenderRpcResult(std::string_view id_json, std::string_view result_json);
// {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M}}.
std::string RenderRpcError(std::string_view id_json, const RpcError& error);

// |object_json| (an object written on one line) with "key": |value_json| added as its last
// member: how a result gains a member written elsewhere (a tool's structured content).
std::string AddJsonMember(std::string_view object_json, std::string_view key,
                          std::string_view value_json);

}  // namespace gpuwhy::mcp
