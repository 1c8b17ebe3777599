// capture: the commands that record what the report says is missing, from its checklist
// (the report names the capture that would decide each item it could not assess in full).
#include "mcp/answer_text.h"
#include "mcp/report_runs.h"
#include "mcp/report_subset.h"
#include "mcp/tool_arguments.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {
namespace {

ToolResult RunCapture(simdjson::dom::object arguments, ToolContext& context) {
  if (Status known = CheckKnownArguments(arguments, {"paths", "finding_id", "section"});
      !known.ok()) {
    return ToolError(known.message());
  }
  StatusOr<std::vector<std::string>> paths = ReadPaths(arguments, "paths");
  if (!paths.ok()) return ToolError(paths.status().message());
  StatusOr<std::optional<std::string>> finding_id = ReadString(arguments, "finding_id", false);
  if (!finding_id.ok()) return ToolError(finding_id.status().message());
  StatusOr<std::optional<std::string>> section = ReadString(arguments, "section", false);
  if (!section.ok()) return ToolError(section.status().message());
  StatusOr<std::shared_ptr<const CachedReport>> cached = EarlierReport(*paths, context);
  if (!cached.ok()) return ToolError(cached.status().message());
  const std::string id = finding_id->value_or(""), in_section = section->value_or("");
  // The text from the Report, the structured content from its JSON: the same items in the same
  // order (the job's, then each rank's, each once).
  StatusOr<std::string> structured = CapturesJson((*cached)->json, id, in_section);
  if (!structured.ok()) return ToolError(structured.status().message());
  return {RenderCaptureAnswer(**cached, CollectCaptures((*cached)->report, id, in_section)),
          std::move(*structured)};
}

}  // namespace

const ToolSpec kCaptureTool{
    .name = "capture",
    .title = "Captures that would decide",
    .description =
        "What the report could not assess in full on these paths, and for each the exact "
        "command that captures it (profiler options, nsys/ncu, DCGM, dmesg, NCCL_DEBUG...), "
        "taken from the report's checklist. Filter by finding_id (the captures whose checklist "
        "item covers that finding's rule) or by checklist section.",
    .input_schema = R"json({
      "type": "object",
      "properties": {
        "paths": {
          "type": "array", "items": {"type": "string"}, "minItems": 1,
          "description": "The same paths given to analyze or doctor"
        },
        "finding_id": {"type": "string", "description": "Only the captures that would firm up this finding's rule"},
        "section": {
          "type": "string",
          "description": "Only this checklist section, e.g. \"kernels and sync\", \"input and CPU\", \"communication\""
        }
      },
      "required": ["paths"],
      "additionalProperties": false
    })json",
    .run = RunCapture,
};

}  // namespace gpuwhy::mcp
