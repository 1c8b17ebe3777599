// The structured content of the answers: parts of the JSON report (docs/report-schema.json)
// copied member for member, so the ids, numbers and names an agent reads here are those of
// `gpuwhy analyze --format json` on the same inputs. Everything is written through the
// project's JsonWriter on one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "base/json_writer.h"
#include "base/status.h"

namespace gpuwhy::mcp {

// Writes a parsed JSON value as it is.
void WriteJsonValue(JsonWriter& w, simdjson::dom::element value);

// {"schema_version", "tool", "cross_rank": {"verdict", "findings"}, "ranks": [{"index",
// "path", "rank", "span", "verdict", "findings"}], "ranks_left_out", "captures", "errors"}:
// the job-wide findings first; each finding whole but its ranges (the first few, the count of
// the rest in "ranges_left_out"); the checklist items that name a capture, each once with the
// "rank_indexes" that list it. Once the text passes |max_bytes|, further findings are only
// counted ("findings_left_out") and further ranks too ("ranks_left_out"), so the size is at
// most |max_bytes| plus one finding, one rank's header and the distinct captures.
StatusOr<std::string> ReportSubsetJson(std::string_view report_json, size_t max_bytes);

// {"place", "finding": the finding's object of the report, whole}: the finding |finding_id|
// of ranks[|rank_index|] (-1: cross_rank).
StatusOr<std::string> FindingJson(std::string_view report_json, int rank_index,
                                  std::string_view finding_id, std::string_view place);

// {"captures": [...]}: the checklist items that name a capture, as ReportSubsetJson lists
// them (the job's, then each rank's; each once with its "rank_indexes"), kept to those whose
// rules include |finding_id| and of |section| (empty: any).
StatusOr<std::string> CapturesJson(std::string_view report_json, std::string_view finding_id,
                                   std::string_view section);

// |json| (an object) re-written on one line.
StatusOr<std::string> OneLineJson(std::string_view json);

}  // namespace gpuwhy::mcp
