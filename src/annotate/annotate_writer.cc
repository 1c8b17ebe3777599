// Streams the original trace through and appends the added tracks. Each original event is
// written as the exact bytes the splitter cut out, so nothing the importer does not model
// (unknown fields, float formatting, key order) is lost.
#include <fmt/format.h>

#include "annotate/annotate.h"
#include "base/file_input.h"
#include "base/json_writer.h"
#include "ingest/kineto/json_event_splitter.h"
#include "synth/output_sink.h"

namespace gpuwhy {
namespace {

constexpr size_t kChunkBytes = 4 << 20;
constexpr size_t kFlushBytes = 4 << 20;

// Buffers output and hands it to the sink in large writes; keeps the first error.
class Buffered {
 public:
  explicit Buffered(OutputSink& sink) : sink_(sink) {}
  std::string& buffer() { return buffer_; }
  void MaybeFlush() {
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    if (status_.ok() && !buffer_.empty()) status_ = sink_.Write(buffer_);
    buffer_.clear();
  }
  const Status& status() const { return status_; }

 private:
  OutputSink& sink_;
  std::string buffer_;
  Status status_;
};

class CopySink : public JsonEventSplitter::Sink {
 public:
  explicit CopySink(Buffered& out) : out_(out) {}
  void OnEvent(std::string_view element_json, uint64_t) override {
    std::string& b = out_.buffer();
    b += first_ ? "\n" : ",\n";
    first_ = false;
    b.append(element_json);
    out_.MaybeFlush();
  }
  void OnTopLevelMember(std::string_view key, std::string_view value_json, uint64_t) override {
    members_.push_back({std::string(key), std::string(value_json)});
  }
  bool first() const { return first_; }
  const std::vector<std::pair<std::string, std::string>>& members() const { return members_; }

 private:
  Buffered& out_;
  bool first_ = true;
  std::vector<std::pair<std::string, std::string>> members_;  // small: metadata, device properties
};

// Microseconds with nanosecond precision, as modern Kineto writes them.
std::string Micros(int64_t ns) {
  return fmt::format("{}{}.{:03d}", ns < 0 ? "-" : "", std::llabs(ns) / 1000, static_cast<int>(std::llabs(ns) % 1000));
}

void WriteAdded(std::string& b, const AddedEvent& e) {
  b += fmt::format("{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{}", e.phase, e.pid, e.tid, Micros(e.ts));
  if (e.phase == 'X') b += ",\"dur\":" + Micros(e.dur);
  b += ",\"cat\":";
  AppendJsonString(b, e.category);
  b += ",\"name\":";
  AppendJsonString(b, e.name);
  b += ",\"args\":{";
  bool first = true;
  for (const auto& [key, value] : e.string_args) {
    b += first ? "" : ",";
    first = false;
    AppendJsonString(b, key);
    b += ':';
    AppendJsonString(b, value);
  }
  for (const auto& [key, value] : e.number_args) {
    b += first ? "" : ",";
    first = false;
    AppendJsonString(b, key);
    b += std::isfinite(value) ? fmt::format(":{}", value) : ":0";
  }
  b += "}}";
}

void WriteMetadata(std::string& b, bool& first, std::string_view what, int64_t pid, int64_t tid,
                   const std::string& name) {
  b += first ? "\n" : ",\n";
  first = false;
  b += fmt::format("{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":", what, pid, tid);
  AppendJsonString(b, name);
  b += "}}";
}

}  // namespace

Status WriteAnnotatedTrace(const std::string& input, const AnnotationTracks& tracks, const std::string& output) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(input));
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenOutputSink(output));
  Buffered out(*sink);
  out.buffer() = "{\"traceEvents\":[";
  CopySink copy(out);
  JsonEventSplitter splitter(*source, kChunkBytes);
  ASSIGN_OR_RETURN(JsonEventSplitter::Result result, splitter.Run(copy));
  std::string& b = out.buffer();
  bool first = copy.first();
  for (const AddedEvent& e : tracks.events) {
    b += first ? "\n" : ",\n";
    first = false;
    WriteAdded(b, e);
    out.MaybeFlush();
  }
  for (const auto& [pid, name] : tracks.process_names) WriteMetadata(b, first, "process_name", pid, 0, name);
  for (const auto& [key, name] : tracks.thread_names) WriteMetadata(b, first, "thread_name", key.first, key.second, name);
  b += "\n]";
  for (const auto& [key, value] : copy.members()) {
    b += ",\n";
    AppendJsonString(b, key);
    b += ':';
    b += value;
  }
  b += "}\n";
  out.Flush();
  RETURN_IF_ERROR(out.status());
  RETURN_IF_ERROR(sink->Close());
  if (result.truncated) {
    return Status(StatusCode::kDataLoss,
                  fmt::format("{}: byte {}: truncated: the events read before it were annotated", input, result.truncated_at));
  }
  return Status::Ok();
}

}  // namespace gpuwhy
