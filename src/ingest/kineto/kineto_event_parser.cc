#include "ingest/kineto/kineto_event_parser.h"

#include <charconv>
#include <cstring>

#include "base/time.h"
#include "ingest/kineto/kineto_arg_keys.h"

namespace gpuwhy {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::value;

// Number text or string text, for timestamps that must stay exact.
bool ReadNumberText(value v, std::string_view& out) {
  json_type type;
  if (v.type().get(type)) return false;
  if (type == json_type::number) {
    out = TrimToken(v.raw_json_token());
    return true;
  }
  if (type == json_type::string) return !v.get_string().get(out);
  return false;
}

bool ReadString(value v, std::string_view& out) { return !v.get_string().get(out); }

bool ReadId(value v, KinetoId& out) {
  json_type type;
  if (v.type().get(type)) return false;
  out.present = true;
  if (type == json_type::number) {
    auto parsed = ParseExactInt(TrimToken(v.raw_json_token()));
    if (!parsed) return false;
    out.is_number = true;
    out.number = *parsed;
    return true;
  }
  if (type == json_type::string) return !v.get_string().get(out.text);
  return false;
}

void ReadTriple(value v, std::array<int32_t, 3>& out) {
  simdjson::ondemand::array array;
  if (v.get_array().get(array)) return;
  size_t i = 0;
  for (auto element : array) {
    value item;
    int64_t n = 0;
    if (element.get(item) || !ReadInt(item, n)) return;
    if (i < 3) out[i] = static_cast<int32_t>(n);
    ++i;
  }
}

std::string_view RawArray(value v) {
  simdjson::ondemand::array array;
  std::string_view raw;
  if (v.get_array().get(array) || array.raw_json().get(raw)) return {};
  return TrimToken(raw);  // raw_json() keeps the whitespace up to the next token
}

// One member of "args" that the table knows, read as its kind says (the fast reader's
// ReadArg reads the same kinds).
void ReadArg(value v, const KinetoArgKey& arg, KinetoArgs& a) {
  switch (arg.read) {
    case KinetoArgRead::kInt: ReadInt(v, arg.FieldOf<int64_t>(a)); return;
    case KinetoArgRead::kInt32: {
      int64_t n = 0;
      if (ReadInt(v, n)) arg.FieldOf<int32_t>(a) = static_cast<int32_t>(n);
      return;
    }
    case KinetoArgRead::kFloat: ReadFloat(v, arg.FieldOf<float>(a)); return;
    case KinetoArgRead::kIntTriple: ReadTriple(v, arg.FieldOf<std::array<int32_t, 3>>(a)); return;
    case KinetoArgRead::kString: ReadString(v, arg.FieldOf<std::string_view>(a)); return;
    case KinetoArgRead::kRawJson: arg.FieldOf<std::string_view>(a) = RawArray(v); return;
  }
}

// The key's raw bytes without unescaping: trace keys are plain ASCII, and a key with an
// escape simply matches no known key (its value is still skipped correctly by simdjson).
std::string_view RawKey(simdjson::ondemand::field& field) {
  const char* key = field.key().raw();
  constexpr size_t kLongestKnownKey = 40;
  const void* quote = std::memchr(key, '"', kLongestKnownKey);
  if (quote == nullptr) return {};
  return std::string_view(key, static_cast<const char*>(quote) - key);
}

size_t SkipSpaces(std::string_view json, size_t p) {
  while (p < json.size() &&
         (json[p] == ' ' || json[p] == '\n' || json[p] == '\r' || json[p] == '\t'))
    ++p;
  return p;
}

// Flow events ({"ph": "s", ...}) are a third of a trace and only counted: read their
// phase and category without running the full parser. False when the shape differs.
bool ParseFlowShortcut(std::string_view json, KinetoEvent& event) {
  size_t p = SkipSpaces(json, 1);
  // An empty element ("[}", a cut file) has no byte 1: compare() would throw.
  if (p >= json.size() || json.compare(p, 4, "\"ph\"") != 0) return false;
  p = SkipSpaces(json, p + 4);
  if (p >= json.size() || json[p] != ':') return false;
  p = SkipSpaces(json, p + 1);
  if (p + 2 >= json.size() || json[p] != '"' || json[p + 2] != '"') return false;
  char ph = json[p + 1];
  if (ph != 's' && ph != 'f' && ph != 't') return false;
  size_t cat = json.find("\"cat\"", p);
  if (cat == std::string_view::npos) return false;
  p = SkipSpaces(json, cat + 5);
  if (p >= json.size() || json[p] != ':') return false;
  p = SkipSpaces(json, p + 1);
  if (p >= json.size() || json[p] != '"') return false;
  size_t close = json.find('"', p + 1);
  if (close == std::string_view::npos) return false;
  std::string_view value = json.substr(p + 1, close - p - 1);
  if (value.find('\\') != std::string_view::npos) return false;
  event.ph = ph;
  event.cat = value;
  return true;
}

}  // namespace

std::string_view TrimToken(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  return token;
}

bool ReadInt(value v, int64_t& out) {
  json_type type;
  if (v.type().get(type)) return false;
  std::string_view text;
  if (type == json_type::number) {
    text = TrimToken(v.raw_json_token());
  } else if (type != json_type::string || v.get_string().get(text)) {
    return false;
  }
  auto parsed = ParseExactInt(text);
  if (!parsed) return false;
  out = *parsed;
  return true;
}

bool ReadFloat(value v, float& out) {
  double d = 0;
  if (v.get_double().get(d)) return false;
  out = static_cast<float>(d);
  return true;
}

bool KinetoEventParser::Parse(std::string_view json, KinetoEvent& event) {
  event.Reset();
  if (ParseFlowShortcut(json, event)) return true;
  simdjson::padded_string_view view(json.data(), json.size(),
                                    json.size() + simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::document doc;
  if (parser_.iterate(view).get(doc)) return false;
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) return false;
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (std::move(field_result).get(field)) return false;
    std::string_view key = RawKey(field);
    value v = field.value();
    bool ok = true;
    if (key == "ph") {
      std::string_view ph;
      ok = ReadString(v, ph);
      if (ok && !ph.empty()) event.ph = ph[0];
    } else if (key == "cat") {
      ok = ReadString(v, event.cat);
    } else if (key == "name") {
      ok = ReadString(v, event.name);
    } else if (key == "ts") {
      ok = ReadNumberText(v, event.ts);
    } else if (key == "dur") {
      ok = ReadNumberText(v, event.dur);
    } else if (key == "pid") {
      ok = ReadId(v, event.pid);
    } else if (key == "tid") {
      ok = ReadId(v, event.tid);
    } else if (key == "id") {
      int64_t id = 0;
      if (ReadInt(v, id)) event.flow_id = id;
    } else if (key == "args") {
      simdjson::ondemand::object args;
      if (!v.get_object().get(args)) {
        event.has_args = true;
        ok = ParseArgs(args, event);
      }
    }
    if (!ok) return false;
  }
  return true;
}

bool KinetoEventParser::ParseArgs(simdjson::ondemand::object args, KinetoEvent& event) {
  KinetoArgs& a = event.args;
  for (auto field_result : args) {
    simdjson::ondemand::field field;
    if (std::move(field_result).get(field)) return false;
    std::string_view key = RawKey(field);
    value v = field.value();
    if (const KinetoArgKey* arg = FindKinetoArgKey(key)) ReadArg(v, *arg, a);
    if (event.ph == 'C') {
      double d = 0;
      if (!v.get_double().get(d)) a.counter_values.emplace_back(key, d);
    }
  }
  return true;
}

}  // namespace gpuwhy
