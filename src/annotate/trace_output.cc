#include "annotate/trace_output.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "base/json_writer.h"
#include "base/text_escape.h"

namespace gpuwhy {
namespace {

constexpr size_t kFlushBytes = 4 << 20;

void Separate(std::string& b, bool& first) {
  b += first ? "\n" : ",\n";
  first = false;
}

}  // namespace

void BufferedTraceOutput::MaybeFlush() {
  if (buffer_.size() >= kFlushBytes) Flush();
}

void BufferedTraceOutput::Flush() {
  if (status_.ok() && !buffer_.empty()) status_ = sink_.Write(buffer_);
  buffer_.clear();
}

void EventCopySink::OnEvent(std::string_view original, uint64_t) {
  // Invalid UTF-8 can only sit inside the element's strings: replaced there, the copy is
  // valid JSON that every reader accepts, as the JSON report writes such bytes.
  std::string replaced;
  std::string_view element_json = original;
  if (!text::IsValidUtf8(original)) element_json = replaced = text::ReplaceInvalidUtf8(original);
  std::string& b = out_.buffer();
  size_t before = b.size();
  bool was_first = first_;
  Separate(b, first_);
  if (rewriter_ == nullptr) {
    b.append(element_json);
  } else if (!rewriter_->Rewrite(element_json, b)) {
    b.resize(before);  // absorbed: nothing written, the separator goes too
    first_ = was_first;
  }
  out_.MaybeFlush();
}

void EventCopySink::OnTopLevelMember(std::string_view key, std::string_view value_json, uint64_t) {
  members_.push_back({std::string(key), text::ReplaceInvalidUtf8(value_json)});
}

std::string FormatMicros(int64_t ns) {
  return fmt::format("{}{}.{:03d}", ns < 0 ? "-" : "", std::llabs(ns) / 1000,
                     static_cast<int>(std::llabs(ns) % 1000));
}

void AppendAddedEvent(std::string& b, bool& first, const AddedEvent& e) {
  Separate(b, first);
  b += fmt::format("{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{}", e.phase, e.pid, e.tid,
                   FormatMicros(e.ts));
  if (e.phase == 'X') b += ",\"dur\":" + FormatMicros(e.dur);
  b += ",\"cat\":";
  AppendJsonString(b, e.category);
  b += ",\"name\":";
  AppendJsonString(b, e.name);
  b += ",\"args\":{";
  bool first_arg = true;
  for (const auto& [key, value] : e.string_args) {
    b += first_arg ? "" : ",";
    first_arg = false;
    AppendJsonString(b, key);
    b += ':';
    AppendJsonString(b, value);
  }
  for (const auto& [key, value] : e.number_args) {
    b += first_arg ? "" : ",";
    first_arg = false;
    AppendJsonString(b, key);
    b += std::isfinite(value) ? fmt::format(":{}", value) : ":0";
  }
  b += "}}";
}

void AppendMetadataEvent(std::string& b, bool& first, std::string_view what, int64_t pid,
                         int64_t tid, std::string_view args_json) {
  Separate(b, first);
  b += fmt::format("{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{}}}", what, pid,
                   tid, args_json);
}

void AppendTracks(BufferedTraceOutput& out, bool& first, const AnnotationTracks& tracks) {
  for (const AddedEvent& e : tracks.events) {
    AppendAddedEvent(out.buffer(), first, e);
    out.MaybeFlush();
  }
  for (const auto& [pid, name] : tracks.process_names) {
    AppendMetadataEvent(out.buffer(), first, "process_name", pid, 0, NameArgs(name));
  }
  for (const auto& [key, name] : tracks.thread_names) {
    AppendMetadataEvent(out.buffer(), first, "thread_name", key.first, key.second, NameArgs(name));
  }
}

std::string NameArgs(std::string_view name) {
  std::string args = "{\"name\":";
  AppendJsonString(args, name);
  args += '}';
  return args;
}

}  // namespace gpuwhy
