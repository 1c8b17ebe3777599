#include "mcp/server.h"

#include <algorithm>
#include <exception>
#include <ostream>

#include <fmt/format.h>

#include "base/json_writer.h"
#include "mcp/line_reader.h"
#include "mcp/report_subset.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {
namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kInstructions =
    "gpuwhy diagnoses why the GPUs of a deep-learning job sit idle or underused, from its "
    "traces and logs; it runs no model. Start with analyze on the trace files or folders; "
    "quote its finding ids, evidence ids and time ranges; ask finding for one finding's whole "
    "evidence and fixes, capture for the commands that record what is missing, next_page for "
    "the rest of a long answer, diff to compare two runs, doctor for node logs.";

RpcError InvalidParams(std::string message) {
  return {RpcErrorCode::kInvalidParams, std::move(message)};
}

}  // namespace

Server::Server(ServerOptions options)
    : options_(std::move(options)),
      pages_(options_.page_bytes),
      context_{options_.pipeline, reports_, pages_, options_.structured_bytes},
      protocol_version_(kProtocolVersions[0]) {
  empty_object_ = empty_parser_.parse(std::string_view("{}")).get_object().value_unsafe();
}

bool Server::StructuredContentAllowed() const {
  // structuredContent arrived with 2025-06-18; older clients get the text alone.
  return protocol_version_ >= "2025-06-18";
}

Server::Result Server::Initialize(const RpcMessage& message) {
  std::string_view requested;
  if (!message.has_params || !message.params.is_object() ||
      message.params["protocolVersion"].get_string().get(requested) != simdjson::SUCCESS) {
    return InvalidParams("initialize: params.protocolVersion (a string) is required");
  }
  const auto* known =
      std::find(std::begin(kProtocolVersions), std::end(kProtocolVersions), requested);
  protocol_version_ = known != std::end(kProtocolVersions) ? *known : kProtocolVersions[0];
  JsonWriter w(0);
  w.BeginObject();
  w.Field("protocolVersion", protocol_version_);
  w.Key("capabilities");
  w.BeginObject();
  w.Key("tools");
  w.BeginObject();
  w.Field("listChanged", false);
  w.EndObject();
  w.EndObject();
  w.Key("serverInfo");
  w.BeginObject();
  w.Field("name", "gpuwhy");
  w.Field("title", "gpuwhy: why the GPUs sit idle");
  w.Field("version", options_.version);
  w.EndObject();
  w.Field("instructions", kInstructions);
  w.EndObject();
  return w.str();
}

Server::Result Server::ListTools(const RpcMessage& message) const {
  if (message.has_params && message.params.is_object() &&
      message.params["cursor"].error() == simdjson::SUCCESS) {
    return InvalidParams("tools/list: unknown cursor (the tool list is one page)");
  }
  std::string tools = "[";
  for (const ToolSpec* tool : Tools()) {
    JsonWriter w(0);
    w.BeginObject();
    w.Field("name", tool->name);
    w.Field("title", tool->title);
    w.Field("description", tool->description);
    w.Key("annotations");
    w.BeginObject();
    w.Field("title", tool->title);
    w.Field("readOnlyHint", true);
    w.Field("destructiveHint", false);
    w.Field("idempotentHint", true);
    w.Field("openWorldHint", false);
    w.EndObject();
    w.EndObject();
    StatusOr<std::string> schema = OneLineJson(tool->input_schema);
    if (!schema.ok()) return RpcError{RpcErrorCode::kInternalError, schema.status().message()};
    if (tools.size() > 1) tools.push_back(',');
    tools += AddJsonMember(w.str(), "inputSchema", *schema);
  }
  tools.push_back(']');
  return AddJsonMember("{}", "tools", tools);
}

std::string Server::ToolResultJson(ToolResult result) {
  Page page;
  if (result.is_error) {
    page.text = std::move(result.text);
  } else if (result.page) {
    page = std::move(*result.page);
    page.text = std::move(result.text);
  } else {
    page = pages_.First(result.text);
  }
  if (!page.next_cursor.empty()) {
    page.text += fmt::format("\n[page {} of {}; the rest: next_page with cursor \"{}\"]\n",
                             page.index, page.count, page.next_cursor);
  } else if (page.count > 1) {
    page.text += fmt::format("\n[page {} of {}, the last]\n", page.index, page.count);
  }
  JsonWriter w(0);
  w.BeginObject();
  w.Key("content");
  w.BeginArray();
  w.BeginObject();
  w.Field("type", "text");
  w.Field("text", page.text);
  w.EndObject();
  w.EndArray();
  w.Field("isError", result.is_error);
  w.EndObject();
  if (result.is_error || !StructuredContentAllowed()) return w.str();
  std::string structured = result.structured.empty() ? "{}" : result.structured;
  if (page.count > 1) {
    JsonWriter p(0);
    p.BeginObject();
    p.Field("index", static_cast<int64_t>(page.index));
    p.Field("count", static_cast<int64_t>(page.count));
    p.Key("next_cursor");
    if (page.next_cursor.empty()) {
      p.Null();
    } else {
      p.String(page.next_cursor);
    }
    p.EndObject();
    structured = AddJsonMember(structured, "page", p.str());
  }
  return AddJsonMember(w.str(), "structuredContent", structured);
}

Server::Result Server::CallTool(const RpcMessage& message) {
  if (!message.has_params || !message.params.is_object()) {
    return InvalidParams("tools/call: params must be an object with the tool's name");
  }
  std::string_view name;
  if (message.params["name"].get_string().get(name) != simdjson::SUCCESS) {
    return InvalidParams("tools/call: params.name (a string) is required");
  }
  const ToolSpec* tool = FindTool(name);
  if (tool == nullptr) return InvalidParams(fmt::format("unknown tool: {}", name));
  dom::object arguments = empty_object_;
  dom::element given;
  if (message.params["arguments"].get(given) == simdjson::SUCCESS && !given.is_null()) {
    if (given.get_object().get(arguments) != simdjson::SUCCESS) {
      return InvalidParams("tools/call: params.arguments must be an object");
    }
  }
  ToolResult result;
  try {
    result = tool->run(arguments, context_);
  } catch (const std::exception& e) {
    result = ToolError(fmt::format("internal error: {}", e.what()));
  }
  return ToolResultJson(std::move(result));
}

Server::Result Server::Dispatch(const RpcMessage& message) {
  if (message.has_params && !message.params.is_object()) {
    return InvalidParams(fmt::format("{}: params must be an object", message.method));
  }
  if (message.method == "initialize") return Initialize(message);
  if (message.method == "ping") return std::string("{}");
  if (message.method == "tools/list") return ListTools(message);
  if (message.method == "tools/call") return CallTool(message);
  return RpcError{RpcErrorCode::kMethodNotFound,
                  fmt::format("method not found: {}", message.method)};
}

std::optional<std::string> Server::Handle(std::string_view line) {
  ParsedMessage parsed = ParseRpcMessage(parser_, line);
  if (!parsed.ok) return RenderRpcError(parsed.message.id_json, parsed.error);
  const RpcMessage& message = parsed.message;
  // Notifications (initialized, cancelled, ...) and a client's responses need no answer.
  if (message.kind != RpcKind::kRequest) return std::nullopt;
  Result result = Dispatch(message);
  if (const RpcError* error = std::get_if<RpcError>(&result)) {
    return RenderRpcError(message.id_json, *error);
  }
  return RenderRpcResult(message.id_json, std::get<std::string>(result));
}

void Server::Serve(std::istream& in, std::ostream& out) {
  LineReader reader(in, options_.max_message_bytes);
  for (Line line = reader.Next(); line.kind != LineKind::kEnd; line = reader.Next()) {
    std::optional<std::string> answer;
    if (line.kind == LineKind::kTooLong) {
      answer = RenderRpcError("null",
                              {RpcErrorCode::kInvalidRequest,
                               fmt::format("invalid request: a message over {} bytes (the limit; "
                                           "gpuwhy mcp --max-message-bytes)",
                                           options_.max_message_bytes)});
    } else if (line.text.find_first_not_of(" \t") == std::string::npos) {
      continue;  // a blank line carries no message
    } else {
      try {
        answer = Handle(line.text);
      } catch (const std::exception& e) {
        answer = RenderRpcError(
            "null", {RpcErrorCode::kInternalError, fmt::format("internal error: {}", e.what())});
      }
    }
    if (answer) out << *answer << '\n' << std::flush;
    if (!out) return;  // the client went away
  }
}

}  // namespace gpuwhy::mcp
