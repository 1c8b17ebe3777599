// Reads the top-level members of a Kineto trace other than traceEvents: device
// properties, distributedInfo, the time base and version strings.
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>

#include "ingest/kineto/kineto_trace_builder.h"
#include "model/trace.h"

namespace gpuwhy {

class KinetoTopLevelReader {
 public:
  KinetoTopLevelReader(Trace& trace, KinetoTraceBuilder& builder)
      : trace_(trace), builder_(builder) {}
  // |value_json| must be followed by simdjson::SIMDJSON_PADDING readable bytes.
  void Read(std::string_view key, std::string_view value_json);

 private:
  bool ReadDevices(simdjson::ondemand::value value);
  bool ReadDistributedInfo(simdjson::ondemand::value value);

  Trace& trace_;
  KinetoTraceBuilder& builder_;
  simdjson::ondemand::parser parser_;
  std::string wrapped_;
};

}  // namespace gpuwhy
