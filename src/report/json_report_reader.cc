#include "report/json_report_reader.h"

#include <cmath>

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

// A millisecond number back in the nanoseconds the report wrote it from (NsToMs).
DurationNs NsFromMs(element e) {
  double ms = NumberOr(e, 0);
  return std::isfinite(ms) ? static_cast<DurationNs>(std::llround(ms * kNsPerMs)) : 0;
}

void ReadSteps(object rank, RankSummary& out) {
  array steps;
  if (rank["steps"].get_array().get(steps) != simdjson::SUCCESS) return;
  for (element step : steps) {
    RankStepTiming s;
    s.number = static_cast<int64_t>(NumberOr(step["step"], 0));
    s.time_ns = NsFromMs(step["time_ms"]);
    object breakdown;
    if (step["breakdown_ms"].get_object().get(breakdown) == simdjson::SUCCESS) {
      // Categories in the report's (fixed) key order; the first step defines them.
      size_t i = 0;
      for (auto [key, value] : breakdown) {
        if (out.steps.empty()) out.step_categories.emplace_back(key);
        if (i < out.step_categories.size() && out.step_categories[i] == key)
          s.category_ns.push_back(NsFromMs(value));
        ++i;
      }
    }
    s.category_ns.resize(out.step_categories.size(), 0);
    out.steps.push_back(std::move(s));
  }
}

// Rank-wide metrics (scope all null).
void ReadMetrics(object rank, RankSummary& out) {
  array metrics;
  if (rank["metrics"].get_array().get(metrics) != simdjson::SUCCESS) return;
  for (element m : metrics) {
    object scope;
    if (m["scope"].get_object().get(scope) == simdjson::SUCCESS) {
      bool rank_wide = true;
      for (const char* key : {"device", "stream", "step"})
        rank_wide = rank_wide && scope[key].is_null();
      if (!rank_wide) continue;
    }
    out.metrics.push_back(
        {StringOr(m["id"]), MetricScope::Rank(), NumberOr(m["value"], NAN), StringOr(m["unit"])});
  }
}

void ReadFindings(object rank, RankSummary& out) {
  array findings;
  if (rank["findings"].get_array().get(findings) != simdjson::SUCCESS) return;
  for (element f : findings) {
    out.findings.push_back({StringOr(f["id"]), StringOr(f["severity"]), StringOr(f["title"]),
                            NsFromMs(f["recoverable_ms_per_step"])});
  }
}

void ReadKernels(object rank, RankSummary& out) {
  out.kernel_stats_complete = false;  // the report keeps the top N only
  array kernels;
  if (rank["top_kernels"].get_array().get(kernels) != simdjson::SUCCESS) return;
  for (element k : kernels) {
    out.kernel_stats.push_back({StringOr(k["name"]), static_cast<int64_t>(NumberOr(k["count"], 0)),
                                NsFromMs(k["total_ms"])});
  }
}

}  // namespace

StatusOr<RankSummary> ParseReportSummary(std::string_view json, const std::string& path) {
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
  RankSummary out;
  out.path = path;
  out.ranks_in_input = ranks.size();
  double rank_number = NumberOr(rank["rank"], NAN);
  out.rank = std::isnan(rank_number) ? kNoValue : static_cast<int64_t>(rank_number);
  ReadSteps(rank, out);
  ReadMetrics(rank, out);
  ReadFindings(rank, out);
  ReadKernels(rank, out);
  return out;
}

StatusOr<RankSummary> ReadReportSummary(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseReportSummary(text, path);
}

}  // namespace gpuwhy
