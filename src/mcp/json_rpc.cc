#include "mcp/json_rpc.h"

#include <cstdint>

#include "base/json_writer.h"

namespace gpuwhy::mcp {
namespace {

namespace dom = simdjson::dom;

ParsedMessage Invalid(std::string id_json, std::string message) {
  ParsedMessage parsed;
  parsed.message.id_json = std::move(id_json);
  parsed.error = {RpcErrorCode::kInvalidRequest, std::move(message)};
  return parsed;
}

// A JSON-RPC id as MCP allows it: a string or an integer (never null).
bool ReadId(dom::element id, std::string& id_json) {
  JsonWriter w(0);
  switch (id.type()) {
    case dom::element_type::STRING:
      w.String(std::string_view(id.get_string().value_unsafe()));
      break;
    case dom::element_type::INT64: w.Int(id.get_int64().value_unsafe()); break;
    case dom::element_type::UINT64: w.Uint(id.get_uint64().value_unsafe()); break;
    default: return false;
  }
  id_json = w.str();
  return true;
}

}  // namespace

ParsedMessage ParseRpcMessage(dom::parser& parser, std::string_view line) {
  dom::element root;
  if (parser.parse(line.data(), line.size()).get(root) != simdjson::SUCCESS) {
    ParsedMessage parsed;
    parsed.message.id_json = "null";
    parsed.error = {RpcErrorCode::kParseError, "parse error: the message is not JSON"};
    return parsed;
  }
  if (root.is_array()) {
    return Invalid("null", "invalid request: batches are not supported (MCP 2025-06-18 on)");
  }
  dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) {
    return Invalid("null", "invalid request: a message is a JSON object");
  }
  ParsedMessage parsed;
  RpcMessage& m = parsed.message;
  m.id_json = "null";
  dom::element id;
  const bool has_id = object["id"].get(id) == simdjson::SUCCESS;
  if (has_id && !ReadId(id, m.id_json)) {
    return Invalid("null", "invalid request: id must be a string or an integer");
  }
  std::string_view version;
  if (object["jsonrpc"].get_string().get(version) != simdjson::SUCCESS || version != "2.0") {
    return Invalid(m.id_json, "invalid request: jsonrpc must be \"2.0\"");
  }
  dom::element method;
  if (object["method"].get(method) != simdjson::SUCCESS) {
    if (has_id && (object["result"].error() == simdjson::SUCCESS ||
                   object["error"].error() == simdjson::SUCCESS)) {
      m.kind = RpcKind::kResponse;
      parsed.ok = true;
      return parsed;
    }
    return Invalid(m.id_json, "invalid request: no method");
  }
  std::string_view method_name;
  if (method.get_string().get(method_name) != simdjson::SUCCESS) {
    return Invalid(m.id_json, "invalid request: method must be a string");
  }
  m.method = std::string(method_name);
  m.kind = has_id ? RpcKind::kRequest : RpcKind::kNotification;
  if (object["params"].get(m.params) == simdjson::SUCCESS) {
    if (!m.params.is_object() && !m.params.is_array()) {
      return Invalid(m.id_json, "invalid request: params must be an object");
    }
    m.has_params = true;
  }
  parsed.ok = true;
  return parsed;
}

std::string RenderRpcResult(std::string_view id_json, std::string_view result_json) {
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out.append(id_json);
  out.append(R"(,"result":)");
  out.append(result_json);
  out.push_back('}');
  return out;
}

std::string RenderRpcError(std::string_view id_json, const RpcError& error) {
  JsonWriter w(0);
  w.BeginObject();
  w.Field("code", static_cast<int64_t>(error.code));
  w.Field("message", error.message);
  w.EndObject();
  std::string out = R"({"jsonrpc":"2.0","id":)";
  out.append(id_json);
  out.append(R"(,"error":)");
  out.append(w.str());
  out.push_back('}');
  return out;
}

std::string AddJsonMember(std::string_view object_json, std::string_view key,
                          std::string_view value_json) {
  std::string out(object_json.substr(0, object_json.rfind('}')));
  if (!out.empty() && out.back() != '{') out.push_back(',');
  AppendJsonString(out, key);
  out.push_back(':');
  out.append(value_json);
  out.push_back('}');
  return out;
}

}  // namespace gpuwhy::mcp
