// capture: the commands that record what the report says is missing, from its checklist
// (the report names the capture that would decide each item it could not assess in full).
#include "base/json_writer.h"
#include "mcp/answer_text.h"
#include "mcp/report_runs.h"
#include "mcp/tool_arguments.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {
namespace {

std::string CapturesJson(const std::vector<CaptureItem>& items) {
  JsonWriter w(0);
  w.BeginObject();
  w.Key("captures");
  w.BeginArray();
  for (const CaptureItem& capture : items) {
    const ChecklistItem& item = *capture.item;
    w.BeginObject();
    w.Field("section", ChecklistSectionName(item.section));
    w.Field("title", item.title);
    w.Field("status", AssessStatusName(item.status));
    w.Field("missing", item.missing);
    w.Field("command", item.command);
    w.Key("rules");
    w.BeginArray();
    for (const std::string& id : item.rule_ids) w.String(id);
    w.EndArray();
    w.Key("rank_indexes");
    w.BeginArray();
    for (int i : capture.rank_indexes) w.Int(i);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.str();
}

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
  std::vector<CaptureItem> items =
      CollectCaptures((*cached)->report, finding_id->value_or(""), section->value_or(""));
  return {RenderCaptureAnswer(**cached, items), CapturesJson(items)};
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
