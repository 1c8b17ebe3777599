#include "report/json_report_reader.h"

#include <cmath>
#include <limits>

#include <simdjson.h>

#include "base/file_input.h"
#include "report/report.h"

namespace gpuwhy {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

std::string_view TypeName(element e) {
  switch (e.type()) {
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE: return "a number";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

// Reads one report's values, each error naming the file and where in the report it is
// ("report.json: ranks[0].steps[3]: no \"time_ms\""), never throwing.
class ReportReader {
 public:
  explicit ReportReader(const std::string& file) : file_(file) {}

  Status Error(std::string_view where, std::string_view what) const {
    return InvalidArgument("{}: {}: {}", file_, where, what);
  }
  Status Member(object o, std::string_view where, std::string_view key, element& out) const {
    if (o[key].get(out) != simdjson::SUCCESS) return Error(where, fmt::format("no \"{}\"", key));
    return Status::Ok();
  }
  Status Wrong(std::string_view where, std::string_view key, std::string_view want,
               element e) const {
    return Error(fmt::format("{}.{}", where, key), fmt::format("{}, not {}", TypeName(e), want));
  }
  Status Object(element e, std::string_view where, object& out) const {
    if (e.get(out) != simdjson::SUCCESS)
      return Error(where, fmt::format("{}, not an object", TypeName(e)));
    return Status::Ok();
  }
  Status Array(object o, std::string_view where, std::string_view key, array& out) const {
    element e;
    RETURN_IF_ERROR(Member(o, where, key, e));
    if (e.get(out) != simdjson::SUCCESS) return Wrong(where, key, "an array", e);
    return Status::Ok();
  }
  Status String(object o, std::string_view where, std::string_view key, std::string& out) const {
    element e;
    RETURN_IF_ERROR(Member(o, where, key, e));
    std::string_view s;
    if (e.get(s) != simdjson::SUCCESS) return Wrong(where, key, "a string", e);
    out = std::string(s);
    return Status::Ok();
  }
  // A number; null (NaN or infinity in the report) gives |if_null|.
  Status Number(object o, std::string_view where, std::string_view key, double if_null,
                double& out) const {
    element e;
    RETURN_IF_ERROR(Member(o, where, key, e));
    return NumberOf(e, fmt::format("{}.{}", where, key), if_null, out);
  }
  Status NumberOf(element e, std::string_view where, double if_null, double& out) const {
    if (e.is_null()) {
      out = if_null;
      return Status::Ok();
    }
    if (e.get(out) == simdjson::SUCCESS) return Status::Ok();  // also converts integers
    return Error(where, fmt::format("{}, not a number", TypeName(e)));
  }
  // An integer; null gives |if_null| when |nullable|.
  Status Integer(object o, std::string_view where, std::string_view key, bool nullable,
                 int64_t if_null, int64_t& out) const {
    element e;
    RETURN_IF_ERROR(Member(o, where, key, e));
    if (nullable && e.is_null()) {
      out = if_null;
      return Status::Ok();
    }
    double d = 0;
    if (e.get(out) == simdjson::SUCCESS) return Status::Ok();
    // A whole number written as a double still reads (3.0); anything else is wrong.
    constexpr double kLimit = 9.2e18;
    if (e.get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) < kLimit &&
        d == std::floor(d)) {
      out = static_cast<int64_t>(d);
      return Status::Ok();
    }
    return Wrong(where, key, "an integer", e);
  }
  // Calls |read|(item, "WHERE.KEY[i]") on each element of the array o[key], each an object.
  template <typename Read>
  Status EachObject(object o, std::string_view where, std::string_view key, Read read) const {
    array items;
    RETURN_IF_ERROR(Array(o, where, key, items));
    size_t i = 0;
    for (element e : items) {
      const std::string at = fmt::format("{}.{}[{}]", where, key, i++);
      object item;
      RETURN_IF_ERROR(Object(e, at, item));
      RETURN_IF_ERROR(read(item, at));
    }
    return Status::Ok();
  }

 private:
  const std::string& file_;
};

// A millisecond number back in the nanoseconds the report wrote it from (NsToMs).
DurationNs NsFromMs(double ms) {
  return std::isfinite(ms) ? static_cast<DurationNs>(std::llround(ms * kNsPerMs)) : 0;
}

Status ReadStep(const ReportReader& in, object step, const std::string& at, RankSummary& out) {
  RankStepTiming s;
  double time_ms = 0;
  RETURN_IF_ERROR(in.Integer(step, at, "step", false, 0, s.number));
  RETURN_IF_ERROR(in.Number(step, at, "time_ms", 0, time_ms));
  s.time_ns = NsFromMs(time_ms);
  element breakdown_value;
  RETURN_IF_ERROR(in.Member(step, at, "breakdown_ms", breakdown_value));
  object breakdown;
  RETURN_IF_ERROR(in.Object(breakdown_value, at + ".breakdown_ms", breakdown));
  // Categories in the report's (fixed) key order; the first step defines them.
  size_t c = 0;
  for (auto [key, value] : breakdown) {
    if (out.steps.empty()) out.step_categories.emplace_back(key);
    if (c < out.step_categories.size() && out.step_categories[c] == key) {
      double ms = 0;
      RETURN_IF_ERROR(in.NumberOf(value, fmt::format("{}.breakdown_ms.{}", at, key), 0, ms));
      s.category_ns.push_back(NsFromMs(ms));
    }
    ++c;
  }
  s.category_ns.resize(out.step_categories.size(), 0);
  out.steps.push_back(std::move(s));
  return Status::Ok();
}

// Rank-wide metrics (scope all null) are kept.
Status ReadMetric(const ReportReader& in, object m, const std::string& at, RankSummary& out) {
  element scope_value;
  RETURN_IF_ERROR(in.Member(m, at, "scope", scope_value));
  object scope;
  RETURN_IF_ERROR(in.Object(scope_value, at + ".scope", scope));
  bool rank_wide = true;
  for (const char* key : {"device", "stream", "step"}) {
    element part;
    RETURN_IF_ERROR(in.Member(scope, at + ".scope", key, part));
    rank_wide = rank_wide && part.is_null();
  }
  Metric metric{"", MetricScope::Rank(), NAN, ""};
  RETURN_IF_ERROR(in.String(m, at, "id", metric.id));
  RETURN_IF_ERROR(in.Number(m, at, "value", NAN, metric.value));
  RETURN_IF_ERROR(in.String(m, at, "unit", metric.unit));
  if (rank_wide) out.metrics.push_back(std::move(metric));
  return Status::Ok();
}

Status ReadFinding(const ReportReader& in, object f, const std::string& at, RankSummary& out) {
  SummaryFinding finding;
  double recoverable_ms = 0;
  RETURN_IF_ERROR(in.String(f, at, "id", finding.id));
  RETURN_IF_ERROR(in.String(f, at, "severity", finding.severity));
  RETURN_IF_ERROR(in.String(f, at, "title", finding.title));
  RETURN_IF_ERROR(in.Number(f, at, "recoverable_ms_per_step", 0, recoverable_ms));
  finding.recoverable_ns_per_step = NsFromMs(recoverable_ms);
  out.findings.push_back(std::move(finding));
  return Status::Ok();
}

Status ReadKernel(const ReportReader& in, object k, const std::string& at, RankSummary& out) {
  KernelTotal kernel;
  double total_ms = 0;
  RETURN_IF_ERROR(in.String(k, at, "name", kernel.name));
  RETURN_IF_ERROR(in.Integer(k, at, "count", false, 0, kernel.count));
  RETURN_IF_ERROR(in.Number(k, at, "total_ms", 0, total_ms));
  kernel.total_ns = NsFromMs(total_ms);
  out.kernel_stats.push_back(std::move(kernel));
  return Status::Ok();
}

// The first rank: its number, steps, rank-wide metrics, findings and top kernels.
Status ReadRank(const ReportReader& in, object rank, RankSummary& out) {
  constexpr std::string_view kAt = "ranks[0]";
  RETURN_IF_ERROR(in.Integer(rank, kAt, "rank", true, kNoValue, out.rank));
  const auto each = [&](std::string_view key, auto read) {
    return in.EachObject(rank, kAt, key, [&](object item, const std::string& at) {
      return read(in, item, at, out);
    });
  };
  RETURN_IF_ERROR(each("steps", ReadStep));
  RETURN_IF_ERROR(each("metrics", ReadMetric));
  RETURN_IF_ERROR(each("findings", ReadFinding));
  out.kernel_stats_complete = false;  // the report keeps the top N only
  return each("top_kernels", ReadKernel);
}

// What makes a document a gpuwhy report this build reads: an object naming the tool, a schema
// version it knows and its ranks.
Status ReadRoot(const std::string& path, element doc, object& root, array& ranks) {
  if (doc.get(root) != simdjson::SUCCESS) {
    return InvalidArgument("{}: not a gpuwhy JSON report: the document is {}, not an object", path,
                           TypeName(doc));
  }
  std::string_view tool;
  if (root["tool"].get(tool) != simdjson::SUCCESS || tool != "gpuwhy") {
    return InvalidArgument("{}: not a gpuwhy JSON report (no \"tool\": \"gpuwhy\")", path);
  }
  element version;
  if (root["schema_version"].get(version) != simdjson::SUCCESS) {
    return InvalidArgument("{}: not a gpuwhy JSON report (no \"schema_version\")", path);
  }
  int64_t number = 0;
  if (version.get(number) != simdjson::SUCCESS || number != kReportSchemaVersion) {
    return InvalidArgument(
        "{}: report schema_version {}: this gpuwhy reads version {} (write the report again "
        "with gpuwhy analyze --format json)",
        path, simdjson::minify(version), kReportSchemaVersion);
  }
  element ranks_value;
  if (root["ranks"].get(ranks_value) != simdjson::SUCCESS) {
    return InvalidArgument("{}: not a gpuwhy JSON report (no \"ranks\")", path);
  }
  if (ranks_value.get(ranks) != simdjson::SUCCESS) {
    return InvalidArgument("{}: \"ranks\" is {}, not an array", path, TypeName(ranks_value));
  }
  if (ranks.size() == 0) {
    return InvalidArgument("{}: the report holds no rank (every input failed?)", path);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RankSummary> ParseReportSummary(std::string_view json, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  element doc;
  if (auto error = parser.parse(padded).get(doc); error != simdjson::SUCCESS) {
    return InvalidArgument("{}: not a gpuwhy JSON report: {}", path,
                           simdjson::error_message(error));
  }
  object root;
  array ranks;
  RETURN_IF_ERROR(ReadRoot(path, doc, root, ranks));
  const ReportReader in(path);
  element first;
  if (ranks.at(0).get(first) != simdjson::SUCCESS) return in.Error("ranks[0]", "unreadable");
  object rank;
  RETURN_IF_ERROR(in.Object(first, "ranks[0]", rank));
  RankSummary out;
  out.path = path;
  out.ranks_in_input = ranks.size();
  RETURN_IF_ERROR(ReadRank(in, rank, out));
  return out;
}

StatusOr<RankSummary> ReadReportSummary(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, InputLimit::kReport));
  return ParseReportSummary(text, path);
}

}  // namespace gpuwhy
