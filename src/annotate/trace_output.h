// Writing Chrome-trace JSON for the annotate outputs: buffered output to a sink, gpuwhy's
// added events and the metadata events that name processes and threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <utility>
#include <vector>

#include "annotate/annotate.h"
#include "annotate/rank_rewrite.h"
#include "base/output_sink.h"
#include "base/status.h"
#include "ingest/kineto/json_event_splitter.h"

namespace gpuwhy {

// Buffers output and hands it to the sink in large writes; keeps the first error.
class BufferedTraceOutput {
 public:
  explicit BufferedTraceOutput(OutputSink& sink) : sink_(sink) {}
  std::string& buffer() { return buffer_; }
  void MaybeFlush();
  void Flush();
  const Status& status() const { return status_; }

 private:
  OutputSink& sink_;
  std::string buffer_;
  Status status_;
};

// Receives a trace's elements from the splitter and writes each one to the output: the exact
// bytes read (each byte that is not UTF-8 replaced by U+FFFD), or placed in a merged trace by
// |rewriter|. Keeps the top-level members, with the same replacement.
class EventCopySink : public JsonEventSplitter::Sink {
 public:
  EventCopySink(BufferedTraceOutput& out, bool& first, RankEventRewriter* rewriter)
      : out_(out), first_(first), rewriter_(rewriter) {}
  void OnEvent(std::string_view element_json, uint64_t offset) override;
  void OnTopLevelMember(std::string_view key, std::string_view value_json,
                        uint64_t offset) override;
  // Small: metadata, device properties, distributed info.
  const std::vector<std::pair<std::string, std::string>>& members() const { return members_; }

 private:
  BufferedTraceOutput& out_;
  bool& first_;  // no element written yet (shared by every input of one output)
  RankEventRewriter* rewriter_;
  std::vector<std::pair<std::string, std::string>> members_;
};

// Microseconds with nanosecond precision, as modern Kineto writes them ("12.345").
std::string FormatMicros(int64_t ns);

// Appends ",\n" (or "\n" before the first element) and then the element.
void AppendAddedEvent(std::string& b, bool& first, const AddedEvent& e);
// A metadata ("M") event: {"ph":"M","name":what,"pid":…,"tid":…,"args":args_json}.
void AppendMetadataEvent(std::string& b, bool& first, std::string_view what, int64_t pid,
                         int64_t tid, std::string_view args_json);
// Every added event, then the names of the added processes and threads.
void AppendTracks(BufferedTraceOutput& out, bool& first, const AnnotationTracks& tracks);
// args {"name": name} with |name| escaped.
std::string NameArgs(std::string_view name);

}  // namespace gpuwhy
