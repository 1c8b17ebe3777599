#include "report/json_report_reader.h"

#include <simdjson.h>

#include "base/file_input.h"

namespace gpuwhy {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

double NumberOr(element e, double fallback) {
  double d;
  if (e.get_double().get(d) == simdjson::SUCCESS) return d;
  int64_t i;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return fallback;  // null (NaN in the report) or absent
}

std::string StringOr(element e, std::string_view fallback = "") {
  std::string_view s;
  return e.get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string(fallback);
}

void ReadSteps(object rank, RunSummary& out) {
  array steps;
  if (rank["steps"].get_array().get(steps) != simdjson::SUCCESS) return;
  for (element step : steps) {
    RunStep s;
    s.number = static_cast<int64_t>(NumberOr(step["step"], 0));
    s.total_ms = NumberOr(step["time_ms"], 0);
    object breakdown;
    if (step["breakdown_ms"].get_object().get(breakdown) == simdjson::SUCCESS) {
      // Categories in the report's (fixed) key order; the first step defines them.
      size_t i = 0;
      for (auto [key, value] : breakdown) {
        if (out.steps.empty()) out.categories.emplace_back(key);
        if (i < out.categories.size() && out.categories[i] == key)
          s.category_ms.push_back(NumberOr(value, 0));
        ++i;
      }
    }
    s.category_ms.resize(out.categories.size(), 0.0);
    out.steps.push_back(std::move(s));
  }
}

// Rank-wide metrics (scope all null) by id.
void ReadMetrics(object rank, RunSummary& out) {
  array metrics;
  if (rank["metrics"].get_array().get(metrics) != simdjson::SUCCESS) return;
  constexpr std::string_view kPrefix = "idle.", kSuffix = "_ms_per_step";
  for (element m : metrics) {
    object scope;
    if (m["scope"].get_object().get(scope) == simdjson::SUCCESS) {
      bool rank_wide = true;
      for (const char* key : {"device", "stream", "step"})
        rank_wide = rank_wide && scope[key].is_null();
      if (!rank_wide) continue;
    }
    std::string id = StringOr(m["id"]);
    double value = NumberOr(m["value"], NAN);
    if (id == "util.kernel_pct") out.kernel_utilization_pct = value;
    if (id == "util.gpu_op_pct") out.gpu_op_utilization_pct = value;
    if (id.size() > kPrefix.size() + kSuffix.size() && id.starts_with(kPrefix) &&
        id.ends_with(kSuffix) && id != "idle.total_ms_per_step") {
      out.idle_ms_per_step.push_back(
          {id.substr(kPrefix.size(), id.size() - kPrefix.size() - kSuffix.size()), value});
    }
  }
}

void ReadFindings(object rank, RunSummary& out) {
  array findings;
  if (rank["findings"].get_array().get(findings) != simdjson::SUCCESS) return;
  for (element f : findings) {
    out.findings.push_back({StringOr(f["id"]), StringOr(f["severity"]), StringOr(f["title"]),
                            NumberOr(f["recoverable_ms_per_step"], 0)});
  }
}

void ReadKernels(object rank, RunSummary& out) {
  out.kernels_complete = false;  // the report keeps the top N only
  array kernels;
  if (rank["top_kernels"].get_array().get(kernels) != simdjson::SUCCESS) return;
  for (element k : kernels) {
    out.kernels.push_back({StringOr(k["name"]), static_cast<int64_t>(NumberOr(k["count"], 0)),
                           NumberOr(k["total_ms"], 0)});
  }
}

}  // namespace

StatusOr<RunSummary> ParseReportSummary(std::string_view json, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  element root;
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    return InvalidArgument("{}: not a gpuwhy JSON report: {}", path,
                           simdjson::error_message(error));
  }
  std::string_view tool;
  if (root["tool"].get_string().get(tool) != simdjson::SUCCESS || tool != "gpuwhy") {
    return InvalidArgument("{}: not a gpuwhy JSON report (no \"tool\": \"gpuwhy\")", path);
  }
  array ranks;
  if (root["ranks"].get_array().get(ranks) != simdjson::SUCCESS || ranks.size() == 0) {
    return InvalidArgument("{}: the report holds no rank (every input failed?)", path);
  }
  object rank;
  if (ranks.at(0).get_object().get(rank) != simdjson::SUCCESS) {
    return InvalidArgument("{}: \"ranks\"[0] is not an object", path);
  }
  RunSummary out;
  out.path = path;
  out.source = "json report";
  out.ranks_in_input = ranks.size();
  out.rank = static_cast<int64_t>(NumberOr(rank["rank"], -1));
  ReadSteps(rank, out);
  ReadMetrics(rank, out);
  ReadFindings(rank, out);
  ReadKernels(rank, out);
  return out;
}

StatusOr<RunSummary> ReadReportSummary(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseReportSummary(text, path);
}

}  // namespace gpuwhy
