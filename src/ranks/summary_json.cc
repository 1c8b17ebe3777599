#include "ranks/summary_json.h"

#include <simdjson.h>

#include "base/file_input.h"
#include "base/json_writer.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kVersionKey = "gpuwhy_rank_summary";

std::string_view RankSourceName(RankSource s) {
  switch (s) {
    case RankSource::kDistributedInfo: return "distributed_info";
    case RankSource::kFileName: return "file_name";
    case RankSource::kUnknown: break;
  }
  return "unknown";
}

RankSource ParseRankSource(std::string_view s) {
  if (s == "distributed_info") return RankSource::kDistributedInfo;
  if (s == "file_name") return RankSource::kFileName;
  return RankSource::kUnknown;
}

void WriteCollective(JsonWriter& w, const RankCollectiveTiming& c) {
  w.BeginObject();
  w.FieldOrNull("step", c.step, c.step != kNoValue);
  w.FieldOrNull("step_index", c.step_index, c.step_index != kNoValue);
  w.Field("kind", c.kind);
  w.Field("process_group", c.process_group);
  w.Field("device", static_cast<int64_t>(c.device));
  w.Field("start_ns", c.start);
  w.Field("end_ns", c.end);
  w.FieldOrNull("bytes", c.bytes, c.bytes != kNoValue);
  w.FieldOrNull("group_size", c.group_size, c.group_size != kNoValue);
  w.Field("compute_before_ns", c.compute_before_ns);
  w.Field("input_wait_before_ns", c.input_wait_before_ns);
  w.EndObject();
}

// Reads `key` of `object` as int64; null or absent → kNoValue.
int64_t IntOr(simdjson::dom::object object, std::string_view key, int64_t fallback = kNoValue) {
  int64_t v = 0;
  if (object[key].get(v) == simdjson::SUCCESS) return v;
  return fallback;
}
std::string StrOr(simdjson::dom::object object, std::string_view key) {
  std::string_view v;
  if (object[key].get(v) == simdjson::SUCCESS) return std::string(v);
  return "";
}

// Calls |read| on each object of root[key]; an element that is not an object is an error
// naming it (a conversion would throw).
template <typename Read>
Status ForEachObject(simdjson::dom::object root, std::string_view key, const std::string& path,
                     Read read) {
  simdjson::dom::array array;
  if (root[key].get(array) != simdjson::SUCCESS) return Status::Ok();
  size_t i = 0;
  for (simdjson::dom::element element : array) {
    simdjson::dom::object object;
    if (element.get(object) != simdjson::SUCCESS)
      return InvalidArgument("{}: \"{}\"[{}] is not an object", path, key, i);
    read(object);
    ++i;
  }
  return Status::Ok();
}

Status ParseArrays(simdjson::dom::object root, const std::string& path, RankSummary& out) {
  RETURN_IF_ERROR(ForEachObject(root, "metrics", path, [&](simdjson::dom::object m) {
    gpuwhy::Metric metric;
    metric.id = StrOr(m, "id");
    metric.unit = StrOr(m, "unit");
    double v = 0;
    if (m["value"].get(v) != simdjson::SUCCESS) {
      int64_t i = 0;
      if (m["value"].get(i) == simdjson::SUCCESS) v = static_cast<double>(i);
    }
    metric.value = v;
    out.metrics.push_back(std::move(metric));
  }));
  RETURN_IF_ERROR(ForEachObject(root, "steps", path, [&](simdjson::dom::object s) {
    out.steps.push_back({IntOr(s, "number", 0), IntOr(s, "start_ns", 0), IntOr(s, "end_ns", 0),
                         IntOr(s, "compute_ns", 0), IntOr(s, "input_wait_ns", 0)});
  }));
  RETURN_IF_ERROR(ForEachObject(root, "collectives", path, [&](simdjson::dom::object c) {
    RankCollectiveTiming t;
    t.step = IntOr(c, "step");
    t.step_index = IntOr(c, "step_index");
    t.kind = StrOr(c, "kind");
    t.process_group = StrOr(c, "process_group");
    t.device = static_cast<int32_t>(IntOr(c, "device", 0));
    t.start = IntOr(c, "start_ns", 0);
    t.end = IntOr(c, "end_ns", 0);
    t.bytes = IntOr(c, "bytes");
    t.group_size = IntOr(c, "group_size");
    t.compute_before_ns = IntOr(c, "compute_before_ns", 0);
    t.input_wait_before_ns = IntOr(c, "input_wait_before_ns", 0);
    out.collectives.push_back(std::move(t));
  }));
  RETURN_IF_ERROR(ForEachObject(root, "kernels", path, [&](simdjson::dom::object k) {
    out.kernels.push_back({StrOr(k, "name"), IntOr(k, "count", 0), IntOr(k, "total_ns", 0)});
  }));
  return ForEachObject(root, "findings", path, [&](simdjson::dom::object f) {
    out.findings.push_back({StrOr(f, "id"), StrOr(f, "severity"), StrOr(f, "title"),
                            IntOr(f, "recoverable_ns_per_step", 0)});
  });
}

}  // namespace

std::string RenderRankSummaryJson(const RankSummary& s) {
  JsonWriter w(0);
  w.BeginObject();
  w.Field(kVersionKey, kRankSummaryFormatVersion);
  w.Field("tool", "gpuwhy");
  w.Field("path", s.path);
  w.FieldOrNull("rank", s.rank, s.rank != kNoValue);
  w.Field("rank_source", RankSourceName(s.rank_source));
  w.FieldOrNull("world_size", s.world_size, s.world_size != kNoValue);
  w.Field("device", s.device_name);
  w.Key("metrics");
  w.BeginArray();
  for (const gpuwhy::Metric& m : s.metrics) {
    w.BeginObject();
    w.Field("id", m.id);
    w.Field("value", m.value);
    w.Field("unit", m.unit);
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps");
  w.BeginArray();
  for (const RankStepTiming& st : s.steps) {
    w.BeginObject();
    w.Field("number", st.number);
    w.Field("start_ns", st.start);
    w.Field("end_ns", st.end);
    w.Field("compute_ns", st.compute_ns);
    w.Field("input_wait_ns", st.input_wait_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("collectives");
  w.BeginArray();
  for (const RankCollectiveTiming& c : s.collectives) WriteCollective(w, c);
  w.EndArray();
  w.Key("kernels");
  w.BeginArray();
  for (const KernelTotal& k : s.kernels) {
    w.BeginObject();
    w.Field("name", k.name);
    w.Field("count", k.count);
    w.Field("total_ns", k.total_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("findings");
  w.BeginArray();
  for (const SummaryFinding& f : s.findings) {
    w.BeginObject();
    w.Field("id", f.id);
    w.Field("severity", f.severity);
    w.Field("title", f.title);
    w.Field("recoverable_ns_per_step", f.recoverable_ns_per_step);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

StatusOr<RankSummary> ParseRankSummaryJson(std::string_view json, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.parse(json.data(), json.size()).get(doc); error != simdjson::SUCCESS) {
    return InvalidArgument("{}: not valid JSON: {}", path, simdjson::error_message(error));
  }
  simdjson::dom::object root;
  if (doc.get(root) != simdjson::SUCCESS)
    return InvalidArgument("{}: a rank summary must be a JSON object", path);
  int64_t version = 0;
  if (root[kVersionKey].get(version) != simdjson::SUCCESS) {
    return InvalidArgument("{}: not a gpuwhy rank summary (no \"{}\" key)", path, kVersionKey);
  }
  if (version != kRankSummaryFormatVersion) {
    return InvalidArgument("{}: rank summary format {} is not the format this gpuwhy reads ({})",
                           path, version, kRankSummaryFormatVersion);
  }
  RankSummary out;
  out.path = StrOr(root, "path");
  if (out.path.empty()) out.path = path;
  out.rank = IntOr(root, "rank");
  out.rank_source = ParseRankSource(StrOr(root, "rank_source"));
  out.world_size = IntOr(root, "world_size");
  out.device_name = StrOr(root, "device");
  RETURN_IF_ERROR(ParseArrays(root, path, out));
  return out;
}

StatusOr<RankSummary> ReadRankSummaryFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path, InputLimit::kRankSummary));
  return ParseRankSummaryJson(bytes, path);
}

}  // namespace gpuwhy
