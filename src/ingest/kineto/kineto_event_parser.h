// Parses one trace-event object (as cut by JsonEventSplitter) into a KinetoEvent with
// simdjson On-Demand: one reused parser, each object walked once, keys switched on.
#pragma once

#include <string_view>

#include <simdjson.h>

#include "ingest/kineto/kineto_event.h"

namespace gpuwhy {

class KinetoEventParser {
 public:
  // |json| must be followed by simdjson::SIMDJSON_PADDING readable bytes.
  // Returns false if the element is not a well-formed JSON object.
  bool Parse(std::string_view json, KinetoEvent& event);

 private:
  bool ParseArgs(simdjson::ondemand::object args, KinetoEvent& event);

  simdjson::ondemand::parser parser_;
};

// Number helpers shared by the importer: exact for integers, from_chars for floats.
bool ReadInt(simdjson::ondemand::value value, int64_t& out);
bool ReadFloat(simdjson::ondemand::value value, float& out);
std::string_view TrimToken(std::string_view token);

}  // namespace gpuwhy
