// The floor the Kineto importer is measured against: a minimal simdjson On-Demand walk of the
// same file (plain JSON). It loads the file whole, then visits every event and reads what any
// importer must (ph, cat, name, pid, tid, ts, dur, and every args key), skipping the values
// it does not need. No model is built, nothing is stored: an importer cannot beat it by much.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuwhy::bench {

struct WalkResult {
  uint64_t bytes = 0;
  uint64_t events = 0;
  uint64_t checksum = 0;  // keeps the reads from being optimised away
};

// A key's bytes up to its closing quote (trace keys carry no escapes).
inline std::string_view RawKey(const char* key) {
  const char* end = key;
  while (*end != '"') ++end;
  return std::string_view(key, end - key);
}

inline bool WalkKinetoJson(const std::string& path, WalkResult& out) {
  namespace od = simdjson::ondemand;
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json)) return false;
  od::parser parser;
  od::document doc;
  if (parser.iterate(json).get(doc)) return false;
  out.bytes = json.size();
  od::object root;
  if (doc.get_object().get(root)) return false;
  for (auto member : root) {
    std::string_view key;
    if (member.unescaped_key().get(key)) return false;
    if (key != "traceEvents") continue;  // the other members' values are skipped
    od::array events;
    if (member.value().get_array().get(events)) return false;
    for (auto element : events) {
      od::object event;
      if (element.get_object().get(event)) return false;
      ++out.events;
      for (auto result : event) {
        od::field field;
        if (std::move(result).get(field)) return false;
        // The raw key, as the importer reads it: unescaping copies every key of every event.
        std::string_view name = RawKey(field.key().raw());
        od::value value = field.value();
        if (name == "ts" || name == "dur") {
          double v = 0;
          if (!value.get_double().get(v)) out.checksum += static_cast<uint64_t>(v);
        } else if (name == "ph" || name == "cat" || name == "name") {
          std::string_view s;
          if (!value.get_string().get(s)) out.checksum += s.size();
        } else if (name == "pid" || name == "tid") {
          out.checksum += value.raw_json_token().size();
        } else if (name == "args") {
          od::object args;
          if (value.get_object().get(args)) continue;
          for (auto arg : args) {
            od::field arg_field;
            if (!std::move(arg).get(arg_field))
              out.checksum += RawKey(arg_field.key().raw()).size();
          }
        }
      }
    }
  }
  return true;
}

}  // namespace gpuwhy::bench
