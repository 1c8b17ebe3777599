#include "mcp/report_runs.h"

#include "mcp/answer_text.h"
#include "mcp/report_subset.h"
#include "mcp/tool_arguments.h"
#include "report/report.h"

namespace gpuwhy::mcp {
namespace {

// What `gpuwhy doctor --from` reads: node logs and metric logs; every folder is a bundle.
constexpr InputPolicy kDoctorPolicy{
    .traces = false, .rank_summaries = false, .metric_logs = true, .node_logs = true};

PipelineOptions OptionsFor(ReportKind kind, const std::vector<std::string>& paths,
                           const PipelineOptions& base) {
  PipelineOptions options = base;
  if (kind == ReportKind::kDoctor) {
    options.accept = kDoctorPolicy;
    options.cross_rank = false;
    for (const std::string& path : paths) {
      options.node_source += (options.node_source.empty() ? "doctor: " : ", ") + path;
    }
    return options;
  }
  // As `gpuwhy analyze` runs it (cli/analyze_command.cc), so the JSON is the same.
  options.drop_render_unused = true;
  options.cross_rank = true;
  return options;
}

std::string JoinFailures(const Report& report, const std::vector<std::string>& paths) {
  std::string message;
  for (const ReportFailure& failure : report.failures) {
    message += (message.empty() ? "" : "; ") + failure.message;
  }
  if (!message.empty()) return message;
  for (const std::string& path : paths) message += (message.empty() ? "" : ", ") + path;
  return message + ": nothing in it that gpuwhy reads";
}

}  // namespace

StatusOr<std::shared_ptr<const CachedReport>> ReadReport(ReportKind kind,
                                                         const std::vector<std::string>& paths,
                                                         ToolContext& context) {
  if (auto cached = context.reports.Find(kind, paths)) return cached;
  auto cached = std::make_shared<CachedReport>();
  cached->kind = kind;
  cached->paths = paths;
  cached->report = RunPipeline(paths, OptionsFor(kind, paths, context.pipeline));
  if (cached->report.ranks.empty() && !cached->report.job) {
    return InvalidArgument("{}", JoinFailures(cached->report, paths));
  }
  TextReportOptions text;
  text.top_n = context.pipeline.analysis.top_n;
  cached->json = RenderReport(cached->report, ReportFormat::kJson, text);
  context.reports.Put(cached);
  return std::shared_ptr<const CachedReport>(std::move(cached));
}

StatusOr<std::shared_ptr<const CachedReport>> EarlierReport(const std::vector<std::string>& paths,
                                                            ToolContext& context) {
  if (auto cached = context.reports.FindAny(paths)) return cached;
  return ReadReport(ReportKind::kAnalyze, paths, context);
}

ToolResult AnswerReport(ReportKind kind, simdjson::dom::object arguments, ToolContext& context) {
  if (Status known = CheckKnownArguments(arguments, {"paths"}); !known.ok()) {
    return ToolError(known.message());
  }
  StatusOr<std::vector<std::string>> paths = ReadPaths(arguments, "paths");
  if (!paths.ok()) return ToolError(paths.status().message());
  StatusOr<std::shared_ptr<const CachedReport>> cached = ReadReport(kind, *paths, context);
  if (!cached.ok()) return ToolError(cached.status().message());
  StatusOr<std::string> structured = ReportSubsetJson((*cached)->json, context.structured_bytes);
  if (!structured.ok()) return ToolError(structured.status().message());
  return {RenderReportAnswer(**cached), std::move(*structured)};
}

}  // namespace gpuwhy::mcp
