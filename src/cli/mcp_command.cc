// `gpuwhy mcp`: serves the Model Context Protocol on stdin/stdout for an agent (docs/mcp.md).
// Standard output carries the protocol alone; nothing else may be printed there. The inputs a
// tool names are only read.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#include "cli/pipeline_flags.h"
#include "mcp/server.h"

#ifndef GPUWHY_VERSION
#define GPUWHY_VERSION "unknown"
#endif

namespace gpuwhy {

void AddMcpCommand(CLI::App& app, McpOptions& options) {
  CLI::App* command = app.add_subcommand(
      "mcp",
      "Serve the Model Context Protocol over stdio for AI agents: tools analyze, finding, "
      "capture, next_page, diff and doctor (docs/mcp.md); no model inside");
  command
      ->add_option("--page-bytes", options.page_bytes,
                   "Bytes of text per page of an answer; the rest is one next_page call away")
      ->check(CLI::Range(1024, 1 << 20));
  command
      ->add_option("--max-message-bytes", options.max_message_bytes,
                   "Longest message accepted; a longer one is refused with an error")
      ->check(CLI::Range(1024, 64 << 20));
  AddPipelineFlags(*command, options.pipeline);
}

int RunMcpCommand(const McpOptions& options, const CliContext& context) {
  mcp::ServerOptions server;
  if (Status status = ApplyPipelineFlags(options.pipeline, server.pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  server.page_bytes = options.page_bytes;
  server.max_message_bytes = options.max_message_bytes;
  server.version = GPUWHY_VERSION;
  mcp::Server(std::move(server)).Serve(std::cin, context.out);
  return kExitOk;
}

}  // namespace gpuwhy
