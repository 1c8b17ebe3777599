#include "ingest/kineto/kineto_event_parser.h"

#include <charconv>
#include <cstring>

#include "base/time.h"

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
  while (p < json.size() && (json[p] == ' ' || json[p] == '\n' || json[p] == '\r' || json[p] == '\t')) ++p;
  return p;
}

// Flow events ({"ph": "s", ...}) are a third of a trace and only counted: read their
// phase and category without running the full parser. False when the shape differs.
bool ParseFlowShortcut(std::string_view json, KinetoEvent& event) {
  size_t p = SkipSpaces(json, 1);
  if (json.compare(p, 4, "\"ph\"") != 0) return false;
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
  simdjson::padded_string_view view(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING);
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
    switch (key.size()) {
      case 4:
        if (key == "grid") ReadTriple(v, a.launch.grid);
        else if (key == "name") ReadString(v, a.name);
        else if (key == "Addr") ReadInt(v, a.addr);
        else if (key == "Seq") ReadInt(v, a.sequence);
        break;
      case 5:
        if (key == "bytes" || key == "Bytes") ReadInt(v, a.bytes);
        else if (key == "block") ReadTriple(v, a.launch.block);
        else if (key == "dtype") ReadString(v, a.dtype);
        break;
      case 6:
        if (key == "device") ReadInt(v, a.device);
        else if (key == "stream") ReadInt(v, a.stream);
        else if (key == "queued") {
          int64_t q = 0;
          if (ReadInt(v, q)) a.launch.queued = static_cast<int32_t>(q);
        }
        break;
      case 8:
        if (key == "graph id") ReadInt(v, a.launch.graph_id);
        break;
      case 9:
        if (key == "Device Id") ReadInt(v, a.device_id);
        break;
      case 10:
        if (key == "Input Dims" || key == "Input dims") a.input_dims = RawArray(v);
        else if (key == "Input type") a.input_types = RawArray(v);
        else if (key == "Group size") ReadInt(v, a.group_size);
        break;
      case 11:
        if (key == "External id" || key == "external id") ReadInt(v, a.external_id);
        else if (key == "correlation") ReadInt(v, a.correlation);
        else if (key == "Device Type") ReadInt(v, a.device_type);
        break;
      case 12:
        if (key == "warps per SM") ReadFloat(v, a.launch.warps_per_sm);
        break;
      case 13:
        if (key == "blocks per SM") ReadFloat(v, a.launch.blocks_per_sm);
        else if (key == "shared memory") {
          int64_t s = 0;
          if (ReadInt(v, s)) a.launch.shared_memory_bytes = static_cast<int32_t>(s);
        } else if (key == "In msg nelems") ReadInt(v, a.in_nelems);
        else if (key == "In split size") ReadString(v, a.in_split_sizes);
        else if (key == "graph node id") ReadInt(v, a.launch.graph_node_id);
        break;
      case 14:
        if (key == "Out msg nelems") ReadInt(v, a.out_nelems);
        else if (key == "Out split size") ReadString(v, a.out_split_sizes);
        else if (key == "wait_on_stream") ReadInt(v, a.wait_on_stream);
        else if (key == "Total Reserved") ReadInt(v, a.total_reserved);
        break;
      case 15:
        if (key == "Collective name") ReadString(v, a.collective_name);
        else if (key == "Total Allocated") ReadInt(v, a.total_allocated);
        break;
      case 18:
        if (key == "Process Group Name") ReadString(v, a.process_group_name);
        break;
      case 20:
        if (key == "registers per thread") {
          int64_t r = 0;
          if (ReadInt(v, r)) a.launch.registers_per_thread = static_cast<int32_t>(r);
        }
        break;
      case 25:
        if (key == "est. achieved occupancy %") ReadFloat(v, a.launch.occupancy_pct);
        else if (key == "Process Group Description") ReadString(v, a.process_group_desc);
        break;
      case 33:
        if (key == "wait_on_cuda_event_record_corr_id") ReadInt(v, a.wait_on_event_correlation);
        break;
      default:
        break;
    }
    if (event.ph == 'C') {
      double d = 0;
      if (!v.get_double().get(d)) a.counter_values.emplace_back(key, d);
    }
  }
  return true;
}

}  // namespace gpuwhy
