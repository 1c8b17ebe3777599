#include "mcp/report_subset.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuwhy::mcp {
namespace {

namespace dom = simdjson::dom;

constexpr size_t kRangesPerFinding = 3;

StatusOr<dom::element> Parse(dom::parser& parser, std::string_view json) {
  dom::element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS || !root.is_object()) {
    return Internal("the report JSON did not parse");
  }
  return root;
}

void CopyMember(JsonWriter& w, dom::object object, std::string_view key) {
  dom::element value;
  if (object[key].get(value) != simdjson::SUCCESS) return;
  w.Key(key);
  WriteJsonValue(w, value);
}

void WriteFindingSubset(JsonWriter& w, dom::object finding) {
  w.BeginObject();
  for (dom::key_value_pair member : finding) {
    w.Key(member.key);
    if (member.key != "ranges" || !member.value.is_array()) {
      WriteJsonValue(w, member.value);
      continue;
    }
    dom::array ranges = member.value.get_array().value_unsafe();
    w.BeginArray();
    size_t n = 0;
    for (dom::element range : ranges) {
      if (n++ < kRangesPerFinding) WriteJsonValue(w, range);
    }
    w.EndArray();
    w.Field("ranges_left_out",
            static_cast<int64_t>(n > kRangesPerFinding ? n - kRangesPerFinding : 0));
  }
  w.EndObject();
}

// "findings" within the budget, then "findings_left_out".
void WriteFindings(JsonWriter& w, dom::object diagnosis, size_t max_bytes) {
  dom::array findings;
  if (diagnosis["findings"].get_array().get(findings) != simdjson::SUCCESS) return;
  w.Key("findings");
  w.BeginArray();
  int64_t left_out = 0;
  for (dom::element finding : findings) {
    if (w.str().size() > max_bytes || !finding.is_object()) {
      ++left_out;
      continue;
    }
    WriteFindingSubset(w, finding.get_object().value_unsafe());
  }
  w.EndArray();
  w.Field("findings_left_out", left_out);
}

// A checklist item that is not assessed in full and names a capture, once over the ranks that
// list it (with the same title and command).
struct Capture {
  dom::element item;
  std::string_view title, command;
  std::vector<int64_t> rank_indexes;
};

// Which checklist items to keep: those whose rules include |finding_id| and of |section|
// (empty: any).
struct CaptureFilter {
  std::string_view finding_id;
  std::string_view section;
};

bool Keeps(const CaptureFilter& filter, dom::element item) {
  std::string_view section;
  if (!filter.section.empty() && (item["section"].get_string().get(section) != simdjson::SUCCESS ||
                                  section != filter.section)) {
    return false;
  }
  if (filter.finding_id.empty()) return true;
  dom::array rules;
  if (item["rules"].get_array().get(rules) != simdjson::SUCCESS) return false;
  for (dom::element rule : rules) {
    std::string_view id;
    if (rule.get_string().get(id) == simdjson::SUCCESS && id == filter.finding_id) return true;
  }
  return false;
}

void GatherCaptures(dom::object diagnosis, int64_t rank_index, const CaptureFilter& filter,
                    std::vector<Capture>& captures) {
  dom::array checklist;
  if (diagnosis["checklist"].get_array().get(checklist) != simdjson::SUCCESS) return;
  for (dom::element item : checklist) {
    std::string_view status, command, title;
    if (item["status"].get_string().get(status) != simdjson::SUCCESS || status == "assessed" ||
        item["command"].get_string().get(command) != simdjson::SUCCESS || command.empty() ||
        item["title"].get_string().get(title) != simdjson::SUCCESS || !Keeps(filter, item)) {
      continue;
    }
    auto same = std::find_if(captures.begin(), captures.end(), [&](const Capture& c) {
      return c.title == title && c.command == command;
    });
    if (same == captures.end()) same = captures.insert(captures.end(), {item, title, command, {}});
    same->rank_indexes.push_back(rank_index);
  }
}

// The job's (-1) and then every rank's captures.
std::vector<Capture> GatherAllCaptures(dom::object report, const CaptureFilter& filter) {
  std::vector<Capture> captures;
  if (dom::object job;
      report["cross_rank"]["diagnosis"].get_object().get(job) == simdjson::SUCCESS) {
    GatherCaptures(job, -1, filter, captures);
  }
  int64_t index = 0;
  if (dom::array ranks; report["ranks"].get_array().get(ranks) == simdjson::SUCCESS) {
    for (dom::element rank : ranks) {
      if (dom::object r; rank.get_object().get(r) == simdjson::SUCCESS) {
        GatherCaptures(r, index, filter, captures);
      }
      ++index;
    }
  }
  return captures;
}

void WriteCaptures(JsonWriter& w, const std::vector<Capture>& captures) {
  w.Key("captures");
  w.BeginArray();
  for (const Capture& capture : captures) {
    dom::object item = capture.item.get_object().value_unsafe();
    w.BeginObject();
    for (dom::key_value_pair member : item) {
      w.Key(member.key);
      WriteJsonValue(w, member.value);
    }
    w.Key("rank_indexes");
    w.BeginArray();
    for (int64_t i : capture.rank_indexes) w.Int(i);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteJsonValue(JsonWriter& w, dom::element value) {
  switch (value.type()) {
    case dom::element_type::OBJECT: {
      dom::object object = value.get_object().value_unsafe();
      w.BeginObject();
      for (dom::key_value_pair member : object) {
        w.Key(member.key);
        WriteJsonValue(w, member.value);
      }
      w.EndObject();
      return;
    }
    case dom::element_type::ARRAY: {
      dom::array array = value.get_array().value_unsafe();
      w.BeginArray();
      for (dom::element item : array) WriteJsonValue(w, item);
      w.EndArray();
      return;
    }
    case dom::element_type::STRING: w.String(value.get_string().value_unsafe()); return;
    case dom::element_type::INT64: w.Int(value.get_int64().value_unsafe()); return;
    case dom::element_type::UINT64: w.Uint(value.get_uint64().value_unsafe()); return;
    case dom::element_type::DOUBLE: w.Double(value.get_double().value_unsafe()); return;
    case dom::element_type::BOOL: w.Bool(value.get_bool().value_unsafe()); return;
    case dom::element_type::NULL_VALUE: w.Null(); return;
  }
}

StatusOr<std::string> ReportSubsetJson(std::string_view report_json, size_t max_bytes) {
  dom::parser parser;
  ASSIGN_OR_RETURN(dom::element root, Parse(parser, report_json));
  dom::object report = root.get_object().value_unsafe();
  JsonWriter w(0);
  w.BeginObject();
  CopyMember(w, report, "schema_version");
  CopyMember(w, report, "tool");
  // The job-wide findings first: with many ranks they are the answer.
  if (dom::object job;
      report["cross_rank"]["diagnosis"].get_object().get(job) == simdjson::SUCCESS) {
    w.Key("cross_rank");
    w.BeginObject();
    CopyMember(w, job, "verdict");
    WriteFindings(w, job, max_bytes);
    w.EndObject();
  }
  w.Key("ranks");
  w.BeginArray();
  int64_t index = 0;
  int64_t ranks_left_out = 0;
  if (dom::array ranks; report["ranks"].get_array().get(ranks) == simdjson::SUCCESS) {
    for (dom::element rank : ranks) {
      dom::object r;
      if (rank.get_object().get(r) != simdjson::SUCCESS) continue;
      if (w.str().size() > max_bytes) {
        ++index;
        ++ranks_left_out;
        continue;
      }
      w.BeginObject();
      w.Field("index", index++);
      for (std::string_view key : {"path", "rank", "span", "verdict"}) CopyMember(w, r, key);
      WriteFindings(w, r, max_bytes);
      w.EndObject();
    }
  }
  w.EndArray();
  w.Field("ranks_left_out", ranks_left_out);
  WriteCaptures(w, GatherAllCaptures(report, {}));
  CopyMember(w, report, "errors");
  w.EndObject();
  return w.str();
}

StatusOr<std::string> FindingJson(std::string_view report_json, int rank_index,
                                  std::string_view finding_id, std::string_view place) {
  dom::parser parser;
  ASSIGN_OR_RETURN(dom::element root, Parse(parser, report_json));
  dom::element diagnosis;
  simdjson::error_code error =
      rank_index < 0 ? root["cross_rank"]["diagnosis"].get(diagnosis)
                     : root["ranks"].at(static_cast<size_t>(rank_index)).get(diagnosis);
  dom::array findings;
  if (error != simdjson::SUCCESS ||
      diagnosis["findings"].get_array().get(findings) != simdjson::SUCCESS) {
    return Internal("the report JSON has no findings at {}", place);
  }
  for (dom::element finding : findings) {
    std::string_view id;
    if (finding["id"].get_string().get(id) != simdjson::SUCCESS || id != finding_id) continue;
    JsonWriter w(0);
    w.BeginObject();
    w.Field("place", place);
    w.Field("rank_index", static_cast<int64_t>(rank_index));
    w.Key("finding");
    WriteJsonValue(w, finding);
    w.EndObject();
    return w.str();
  }
  return Internal("the report JSON has no finding {} at {}", finding_id, place);
}

StatusOr<std::string> CapturesJson(std::string_view report_json, std::string_view finding_id,
                                   std::string_view section) {
  dom::parser parser;
  ASSIGN_OR_RETURN(dom::element root, Parse(parser, report_json));
  JsonWriter w(0);
  w.BeginObject();
  WriteCaptures(w, GatherAllCaptures(root.get_object().value_unsafe(), {finding_id, section}));
  w.EndObject();
  return w.str();
}

StatusOr<std::string> OneLineJson(std::string_view json) {
  dom::parser parser;
  ASSIGN_OR_RETURN(dom::element root, Parse(parser, json));
  JsonWriter w(0);
  WriteJsonValue(w, root);
  return w.str();
}

}  // namespace gpuwhy::mcp
