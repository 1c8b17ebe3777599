// Reading inputs as `gpuwhy analyze` and `gpuwhy doctor --from` do, in-process: the same
// pipeline, the same JSON report, kept in the session's cache.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "mcp/report_cache.h"
#include "mcp/tool.h"

namespace gpuwhy::mcp {

// The report of |paths| read as |kind| (from the cache while the inputs are unchanged). Fails
// with the inputs' one-line messages when none of them could be used.
StatusOr<std::shared_ptr<const CachedReport>> ReadReport(ReportKind kind,
                                                         const std::vector<std::string>& paths,
                                                         ToolContext& context);

// For tools that look into an earlier answer (finding, capture): the latest report of |paths|
// of either kind, else they are read as analyze reads them.
StatusOr<std::shared_ptr<const CachedReport>> EarlierReport(const std::vector<std::string>& paths,
                                                            ToolContext& context);

// analyze and doctor: the report of the "paths" argument as text, findings first
// (answer_text.h), and its JSON subset as structured content (report_subset.h).
ToolResult AnswerReport(ReportKind kind, simdjson::dom::object arguments, ToolContext& context);

}  // namespace gpuwhy::mcp
