#include "ingest/summaries/profile_summary_reader.h"

#include <cmath>

#include "base/file_input.h"
#include "base/text.h"
#include "ingest/summaries/summary_parsers.h"

namespace gpuwhy {
namespace {

std::string_view FirstLine(std::string_view head) {
  size_t i = 0;
  while (i < head.size() && (head[i] == '\n' || head[i] == '\r' || head[i] == ' ')) ++i;
  std::string_view rest = head.substr(i);
  return text::Trim(rest.substr(0, rest.find('\n')));
}

}  // namespace

std::optional<int64_t> SummaryInteger(std::string_view cell) {
  std::optional<double> v = text::ParseNumber(cell);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > 9.2e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(*v));
}

std::optional<SummaryTool> SniffProfileSummary(std::string_view head) {
  const bool kernel_table =
      text::Contains(head, "Total Time (ns)") &&
      (text::Contains(head, "cuda_gpu_kern_sum") || text::Contains(head, "gpukernsum"));
  if (kernel_table) return SummaryTool::kNsysKernelSummary;
  std::string_view first = FirstLine(head);
  if (first == "System Config" && text::Contains(head, "DLProf Version"))
    return SummaryTool::kDlprofSummary;
  if (first == "Kernel Report" && text::Contains(head, "Kernel Name,") &&
      text::Contains(head, "Total GPU Time (ns)"))
    return SummaryTool::kDlprofKernels;
  return std::nullopt;
}

StatusOr<ProfileSummary> ParseProfileSummary(std::string_view text, const std::string& path) {
  std::optional<SummaryTool> tool = SniffProfileSummary(text.substr(0, 64 << 10));
  if (!tool)
    return InvalidArgument("{}: not an nsys stats kernel summary or a DLProf summary/kernel CSV",
                           path);
  switch (*tool) {
    case SummaryTool::kNsysKernelSummary: return ParseNsysKernelSummary(text, path);
    case SummaryTool::kDlprofSummary: return ParseDlprofSummary(text, path);
    case SummaryTool::kDlprofKernels: return ParseDlprofKernels(text, path);
  }
  return InvalidArgument("{}: unknown summary", path);
}

StatusOr<ProfileSummary> ReadProfileSummary(const std::string& path) {
  StatusOr<std::string> content = ReadWholeFile(path, InputLimit::kProfileSummary);
  if (!content.ok()) return content.status();
  return ParseProfileSummary(*content, path);
}

}  // namespace gpuwhy
