// `nsys stats --report cuda_gpu_kern_sum` (and the older gpukernsum) as text: a header of
// column names over a line of dash runs, one row per kernel name. The dash runs give the
// columns; numbers are read as whitespace-separated words (right-aligned in their runs) and
// the name is the rest of the row, since names hold spaces ("void at::native::…").
#include <fmt/format.h>

#include <cmath>

#include "base/text.h"
#include "ingest/summaries/summary_parsers.h"

namespace gpuwhy {
namespace {

struct Column {
  size_t begin = 0;
  size_t end = 0;
  std::string name;
};

// The dash runs of |rule| and the header text above each.
std::vector<Column> Columns(std::string_view header, std::string_view rule) {
  std::vector<Column> columns;
  for (size_t i = 0; i < rule.size();) {
    if (rule[i] != '-') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < rule.size() && rule[j] == '-') ++j;
    Column c{i, j, ""};
    if (i < header.size())
      c.name = std::string(text::Trim(header.substr(i, std::min(j, header.size()) - i)));
    columns.push_back(std::move(c));
    i = j;
  }
  return columns;
}

bool IsRule(std::string_view line) {
  std::string_view t = text::Trim(line);
  return t.size() >= 3 && t.find_first_not_of("- ") == std::string_view::npos;
}

bool CutName(std::string_view name) {
  return name.ends_with("\xE2\x80\xA6") || name.ends_with("...");
}

// Column indices by header name; -1 when absent.
struct Layout {
  int total = -1;
  int instances = -1;
  int median = -1;
  int max = -1;
  size_t numeric = 0;  // columns before the name
};

Layout LayoutOf(const std::vector<Column>& columns) {
  Layout l;
  for (size_t i = 0; i < columns.size(); ++i) {
    std::string_view n = columns[i].name;
    if (text::StartsWith(n, "Total Time")) l.total = static_cast<int>(i);
    if (n == "Instances" || n == "Calls") l.instances = static_cast<int>(i);
    if (text::StartsWith(n, "Med")) l.median = static_cast<int>(i);
    if (text::StartsWith(n, "Max")) l.max = static_cast<int>(i);
  }
  l.numeric = columns.empty() ? 0 : columns.size() - 1;
  return l;
}

}  // namespace

StatusOr<ProfileSummary> ParseNsysKernelSummary(std::string_view content, const std::string& path) {
  ProfileSummary out;
  out.path = path;
  out.tool = SummaryTool::kNsysKernelSummary;
  std::vector<text::NumberedLine> lines = text::NumberLines(content);
  const bool nvtx_names = content.find("nvtx-name") != std::string_view::npos;
  bool in_kernel_section = false;
  bool saw_table = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i].text;
    if (text::Contains(line, "** ")) {
      // A report section: only the kernel summary is read (a file may hold several).
      in_kernel_section = text::Contains(line, "cuda_gpu_kern_sum") ||
                          text::Contains(line, "gpukernsum") ||
                          text::Contains(line, "Kernel Summary");
      continue;
    }
    if (!in_kernel_section || !text::Contains(line, "Total Time") || i + 1 >= lines.size() ||
        !IsRule(lines[i + 1].text))
      continue;
    std::vector<Column> columns = Columns(line, lines[i + 1].text);
    Layout layout = LayoutOf(columns);
    if (layout.total < 0 || layout.numeric == 0) continue;
    saw_table = true;
    for (i += 2; i < lines.size() && !text::Trim(lines[i].text).empty(); ++i) {
      std::string_view row = lines[i].text;
      std::vector<std::string_view> words = text::SplitWords(row);
      auto bad = [&](std::string_view why) {
        out.problems.Add(DataProblem::kUnparsedLine,
                         fmt::format("{}: line {}: {}", path, lines[i].number, why));
      };
      if (words.size() <= layout.numeric) {
        bad("fewer columns than the header names");
        continue;
      }
      auto field = [&](int index) -> std::optional<DurationNs> {
        if (index < 0) return kNoValue;
        return SummaryInteger(words[static_cast<size_t>(index)]);
      };
      std::optional<DurationNs> total = field(layout.total);
      std::optional<DurationNs> instances = field(layout.instances);
      std::optional<DurationNs> median = field(layout.median);
      std::optional<DurationNs> max = field(layout.max);
      if (!total || !instances || !median || !max) {
        bad("a number column does not hold a number");
        continue;
      }
      // The name starts after the last number word.
      size_t name_at = static_cast<size_t>(words[layout.numeric].data() - row.data());
      SummaryKernel k;
      k.name = std::string(text::Trim(row.substr(name_at)));
      if (nvtx_names) {
        size_t slash = k.name.find('/');
        if (slash != std::string::npos) {
          k.range = k.name.substr(0, slash);
          k.name.erase(0, slash + 1);
        }
      }
      k.name_cut = CutName(k.name);
      k.total_ns = *total;
      k.instances = *instances == kNoValue ? 0 : *instances;
      k.median_ns = *median;
      k.max_ns = *max;
      out.kernels.push_back(std::move(k));
    }
  }
  if (!saw_table)
    return InvalidArgument(
        "{}: no cuda_gpu_kern_sum table (a 'Total Time (ns)' header over a line "
        "of dashes)",
        path);
  return out;
}

}  // namespace gpuwhy
