// diff: two runs compared as `gpuwhy diff BASE TEST` compares them (a trace or a JSON report
// each): step time, breakdown, idle causes, findings and kernels, with a verdict line.
#include "diff/diff.h"
#include "diff/diff_render.h"
#include "ingest/input_kind.h"
#include "mcp/report_subset.h"
#include "mcp/tool_arguments.h"
#include "mcp/tools.h"
#include "report/json_report_reader.h"
#include "report/terminal_style.h"

namespace gpuwhy::mcp {
namespace {

// What `gpuwhy diff` reads of a trace (cli/input_policies.h: kTraceInputs).
constexpr InputPolicy kDiffTraceInputs{
    .traces = true, .rank_summaries = false, .metric_logs = false, .node_logs = false};

// One run: a JSON report read back, or a trace through the pipeline, which must hold one rank.
StatusOr<RankSummary> ReadRun(const std::string& path, const PipelineOptions& options) {
  if (ClassifyInput(path).kind == InputKind::kGpuwhyReport) return ReadReportSummary(path);
  Report report = RunPipeline({path}, options);
  if (!report.failures.empty()) return InvalidArgument("{}", report.failures.front().message);
  if (report.ranks.size() != 1 || report.summaries.size() != 1 ||
      !HasTraceAnalysis(report.ranks.front())) {
    return InvalidArgument(
        "{}: holds {} traces; diff compares one trace or gpuwhy JSON report "
        "with another",
        path, report.ranks.size());
  }
  return std::move(report.summaries.front());
}

ToolResult RunDiffTool(simdjson::dom::object arguments, ToolContext& context) {
  if (Status known = CheckKnownArguments(arguments, {"base", "test"}); !known.ok()) {
    return ToolError(known.message());
  }
  StatusOr<std::optional<std::string>> base_path = ReadString(arguments, "base", true);
  if (!base_path.ok()) return ToolError(base_path.status().message());
  StatusOr<std::optional<std::string>> test_path = ReadString(arguments, "test", true);
  if (!test_path.ok()) return ToolError(test_path.status().message());
  PipelineOptions options = context.pipeline;
  options.accept = kDiffTraceInputs;
  options.cross_rank = false;
  options.summary_kernel_stats = SummaryKernelStats::kEveryName;
  StatusOr<RankSummary> base = ReadRun(**base_path, options);
  if (!base.ok()) return ToolError(base.status().message());
  StatusOr<RankSummary> test = ReadRun(**test_path, options);
  if (!test.ok()) return ToolError(test.status().message());
  RunDiff diff = DiffRuns(*base, *test, DiffOptions{});
  StatusOr<std::string> structured = OneLineJson(RenderDiffJson(diff));
  if (!structured.ok()) return ToolError(structured.status().message());
  return {TerminalText(RenderDiffText(diff), ColourMode::kOff), std::move(*structured)};
}

}  // namespace

const ToolSpec kDiffTool{
    .name = "diff",
    .title = "Compare two runs",
    .description =
        "Compare two runs of a job (each a trace or a `gpuwhy analyze --format json` report), as "
        "`gpuwhy diff` does: a verdict line (faster, slower or within noise), median step time "
        "and its spread, the step breakdown, utilization, idle causes, findings that appeared "
        "or went away, and kernels that got slower or faster. Files are only read.",
    .input_schema = R"json({
      "type": "object",
      "properties": {
        "base": {"type": "string", "description": "The reference run: a trace or gpuwhy JSON report"},
        "test": {"type": "string", "description": "The run to judge: a trace or gpuwhy JSON report"}
      },
      "required": ["base", "test"],
      "additionalProperties": false
    })json",
    .run = RunDiffTool,
};

}  // namespace gpuwhy::mcp
