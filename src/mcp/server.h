// `gpuwhy mcp`: a Model Context Protocol server over stdio. Each line read is one JSON-RPC
// message and each answer one line written (the MCP stdio transport); the lifecycle
// (initialize with version negotiation, ping), tools/list and tools/call are served, and the
// tools (tools.cc) run gpuwhy's pipeline in-process. No model runs here: the answers are the
// report's findings, ids and captures, for the agent's model to read and quote.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <simdjson.h>

#include "mcp/json_rpc.h"
#include "mcp/page_store.h"
#include "mcp/report_cache.h"
#include "mcp/tool.h"
#include "pipeline/pipeline.h"

namespace gpuwhy::mcp {

// The protocol revisions this server speaks, newest first; a client asking for another one
// is answered with the newest (MCP lifecycle: version negotiation).
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05"};

struct ServerOptions {
  size_t max_message_bytes = size_t{1} << 20;  // a longer line is refused, never held
  size_t page_bytes = 16 * 1024;               // a tool's text answer per page
  size_t structured_bytes = 64 * 1024;         // structuredContent's bound (report_subset.h)
  PipelineOptions pipeline;                    // --set, --config, --step-range
  std::string version;                         // serverInfo.version
};

class Server {
 public:
  explicit Server(ServerOptions options);

  // One message in; the answer (one line, no newline), or nullopt for a notification or a
  // client's response.
  std::optional<std::string> Handle(std::string_view line);
  // Serves newline-delimited messages from |in| until its end, each answer a line on |out|.
  void Serve(std::istream& in, std::ostream& out);

  const std::string& protocol_version() const { return protocol_version_; }

 private:
  using Result = std::variant<std::string, RpcError>;  // a result object's JSON, or an error
  Result Dispatch(const RpcMessage& message);
  Result Initialize(const RpcMessage& message);
  Result ListTools(const RpcMessage& message) const;
  Result CallTool(const RpcMessage& message);
  std::string ToolResultJson(ToolResult result);
  bool StructuredContentAllowed() const;

  ServerOptions options_;
  simdjson::dom::parser parser_;
  simdjson::dom::parser empty_parser_;
  simdjson::dom::object empty_object_;  // the arguments of a call that gives none
  ReportCache reports_;
  PageStore pages_;
  ToolContext context_;
  std::string protocol_version_;  // negotiated; the newest until a client initializes
};

}  // namespace gpuwhy::mcp
