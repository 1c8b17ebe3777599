// What a tool is: a name, a description an agent reads to choose it, the JSON Schema of its
// arguments, and a function from arguments to a result. The tools are listed once, in
// tools.cc; the server lists and calls them from that list.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "mcp/page_store.h"
#include "mcp/report_cache.h"
#include "pipeline/pipeline.h"

namespace gpuwhy::mcp {

// A tool's answer. A failure is a result too (is_error), whose text is gpuwhy's one-line
// message, so the agent reads it and can correct its call (MCP: tool execution errors).
struct ToolResult {
  std::string text;        // the answer, findings first; paged by the server when long
  std::string structured;  // one JSON object on one line (structuredContent), or empty
  bool is_error = false;
  std::optional<Page> page;  // set by a tool whose text is one page already (next_page)
};

ToolResult ToolError(std::string message);

// What every tool may use: the pipeline's options (--set, --config, --step-range of
// `gpuwhy mcp`), the reports already computed and the page store.
struct ToolContext {
  const PipelineOptions& pipeline;
  ReportCache& reports;
  PageStore& pages;
  size_t structured_bytes = 64 * 1024;  // structuredContent's bound (report_subset.h)
};

struct ToolSpec {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::string_view input_schema;  // JSON Schema of the arguments (any layout; minified on listing)
  ToolResult (*run)(simdjson::dom::object arguments, ToolContext& context);
};

// Every tool, in the order tools/list shows them.
std::span<const ToolSpec* const> Tools();
const ToolSpec* FindTool(std::string_view name);

}  // namespace gpuwhy::mcp
