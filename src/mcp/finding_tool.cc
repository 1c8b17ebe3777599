// finding: one finding of an earlier answer, whole: its evidence, time ranges, events, quoted
// log lines, fixes and the checklist items (with captures) of its rule.
#include <fmt/format.h>

#include "mcp/answer_text.h"
#include "mcp/report_runs.h"
#include "mcp/report_subset.h"
#include "mcp/tool_arguments.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {
namespace {

// The finding |id| at |rank_index| (nullopt: the first place that has it).
StatusOr<FindingPlace> FindFinding(const CachedReport& cached, const std::string& id,
                                   std::optional<int64_t> rank_index) {
  std::string ids;
  for (const FindingPlace& place : AllFindings(cached.report)) {
    if (place.finding->id == id && (!rank_index || *rank_index == place.rank_index)) return place;
    if (ids.find(place.finding->id) == std::string::npos) {
      ids += (ids.empty() ? "" : ", ") + place.finding->id;
    }
  }
  std::string where = rank_index ? fmt::format(" at rank_index {}", *rank_index) : "";
  return NotFound("no finding '{}'{} in the report of these paths; its findings: {}", id, where,
                  ids.empty() ? "none" : ids);
}

ToolResult RunFinding(simdjson::dom::object arguments, ToolContext& context) {
  if (Status known = CheckKnownArguments(arguments, {"paths", "finding_id", "rank_index"});
      !known.ok()) {
    return ToolError(known.message());
  }
  StatusOr<std::vector<std::string>> paths = ReadPaths(arguments, "paths");
  if (!paths.ok()) return ToolError(paths.status().message());
  StatusOr<std::optional<std::string>> id = ReadString(arguments, "finding_id", true);
  if (!id.ok()) return ToolError(id.status().message());
  StatusOr<std::optional<int64_t>> rank_index = ReadInteger(arguments, "rank_index", -1, 1 << 20);
  if (!rank_index.ok()) return ToolError(rank_index.status().message());
  StatusOr<std::shared_ptr<const CachedReport>> cached = EarlierReport(*paths, context);
  if (!cached.ok()) return ToolError(cached.status().message());
  StatusOr<FindingPlace> place = FindFinding(**cached, **id, *rank_index);
  if (!place.ok()) return ToolError(place.status().message());
  StatusOr<std::string> structured = FindingJson((*cached)->json, place->rank_index, **id,
                                                 PlaceName((*cached)->report, place->rank_index));
  if (!structured.ok()) return ToolError(structured.status().message());
  return {RenderFindingAnswer(**cached, *place), std::move(*structured)};
}

}  // namespace

const ToolSpec kFindingTool{
    .name = "finding",
    .title = "One finding in full",
    .description =
        "One finding of an earlier analyze (or doctor) answer on the same paths, in full: every "
        "evidence line with its threshold and source, every time range (start..end ns), the "
        "events behind it, quoted log lines, every fix with its code and preconditions, fixes "
        "left out and why, how to verify the fix, and the checklist items of its rule with the "
        "capture that would firm it up.",
    .input_schema = R"json({
      "type": "object",
      "properties": {
        "paths": {
          "type": "array", "items": {"type": "string"}, "minItems": 1,
          "description": "The same paths given to analyze"
        },
        "finding_id": {"type": "string", "description": "A finding id of the answer, e.g. input.dataloader_wait"},
        "rank_index": {
          "type": "integer", "minimum": -1,
          "description": "Which report of several ranks: its index in ranks[] (-1: the job-wide view); default: the first that has the finding"
        }
      },
      "required": ["paths", "finding_id"],
      "additionalProperties": false
    })json",
    .run = RunFinding,
};

}  // namespace gpuwhy::mcp
