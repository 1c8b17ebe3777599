// The one entry renderers share: a Report in the format a command was asked for.
#include "report/cross_rank_report.h"
#include "report/report.h"

namespace gpuwhy {

std::optional<ReportDetail> ParseReportDetail(std::string_view name) {
  if (name == "compact") return ReportDetail::kCompact;
  if (name == "full") return ReportDetail::kFull;
  return std::nullopt;
}

ReportFormat ParseReportFormat(std::string_view name) {
  if (name == "json") return ReportFormat::kJson;
  if (name == "md") return ReportFormat::kMarkdown;
  if (name == "html") return ReportFormat::kHtml;
  return ReportFormat::kText;
}

std::string RenderReport(const Report& report, ReportFormat format,
                         const TextReportOptions& options) {
  const std::optional<CrossRankReport>& job = report.job;
  switch (format) {
    case ReportFormat::kJson: {
      return RenderReportJson(report.ranks, report.failures, options.top_n, job ? &*job : nullptr);
    }
    case ReportFormat::kHtml:
      return RenderReportHtml(report.ranks, report.failures, job ? &*job : nullptr);
    case ReportFormat::kMarkdown: {
      const bool compact = report.ranks.size() > 1 && options.detail == ReportDetail::kCompact;
      std::string rendered =
          compact ? RenderReportMarkdownCompact(report.ranks, report.failures, options)
                  : RenderReportMarkdown(report.ranks, report.failures, options);
      return job ? RenderCrossRankMarkdown(*job, options) + rendered : rendered;
    }
    case ReportFormat::kText: break;
  }
  std::string rendered = RenderReportText(report.ranks, options);
  return job ? RenderCrossRankText(*job, options) + rendered : rendered;
}

}  // namespace gpuwhy
