#include "ingest/kineto/kineto_importer.h"

#include <cstring>

#include "ingest/kineto/json_event_splitter.h"
#include "ingest/kineto/kineto_event_parser.h"
#include "ingest/kineto/kineto_fast_reader.h"
#include "ingest/kineto/kineto_top_level.h"
#include "ingest/kineto/kineto_trace_builder.h"

namespace gpuwhy {
namespace {

// Connects the tokenizer to the parser and the builder.
class ImportSink : public JsonEventSplitter::Sink {
 public:
  explicit ImportSink(Trace& trace) : builder_(trace), top_level_(trace, builder_) {}

  void OnEvent(std::string_view element, uint64_t offset) override {
    if (!parser_.Parse(element, event_)) {
      builder_.CountMalformed(offset);
      return;
    }
    builder_.AddEvent(event_);
  }
  Consumed TryConsumeEvent(const char* data, size_t available, size_t* consumed) override {
    switch (ReadEventFast(data, available, event_, consumed)) {
      case FastReadResult::kOk: builder_.AddEvent(event_); return Consumed::kEvent;
      case FastReadResult::kIncomplete: return Consumed::kNeedMore;
      case FastReadResult::kDeclined: return Consumed::kDeclined;
    }
    return Consumed::kDeclined;
  }
  void OnTopLevelMember(std::string_view key, std::string_view value, uint64_t) override {
    top_level_.Read(key, value);
  }
  KinetoTraceBuilder& builder() { return builder_; }

 private:
  KinetoTraceBuilder builder_;
  KinetoTopLevelReader top_level_;
  KinetoEventParser parser_;
  KinetoEvent event_;
};

// A ByteSource over memory, so tests and benchmarks share the file path's code.
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view content) : content_(content) {
    file_size_ = content.size();
  }
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    size_t n = std::min(capacity, content_.size() - offset_);
    if (n == 0) return n;  // an empty view may have a null data()
    std::memcpy(dst, content_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  Compression compression() const override { return Compression::kNone; }
  uint64_t file_offset() const override { return offset_; }

 private:
  std::string_view content_;
  size_t offset_ = 0;
};

StatusOr<Trace> ImportFromSource(ByteSource& source, const std::string& name,
                                 const KinetoImportOptions& options) {
  Trace trace;
  trace.metadata.path = name;
  trace.metadata.format = "kineto";
  trace.metadata.file_size_bytes = source.file_size();
  trace.metadata.compressed = source.compression() == Compression::kGzip;
  // Real and synthetic traces spend 250-350 bytes of JSON per modelled row. Reserving
  // generously costs address space, not memory: pages never touched stay unmapped.
  uint64_t json_estimate = source.file_size() * (trace.metadata.compressed ? 10 : 1);
  trace.cpu_slices.Reserve(static_cast<size_t>(json_estimate / 200));
  trace.gpu_ops.Reserve(static_cast<size_t>(json_estimate / 400));
  ImportSink sink(trace);
  JsonEventSplitter splitter(source, options.chunk_bytes);
  auto result = splitter.Run(sink);
  if (!result.ok()) return result.status().WithContext(name);
  trace.metadata.content_bytes = result->bytes;
  if (result->truncated) {
    std::string detail = "byte " + std::to_string(result->truncated_at) + ": input stops after " +
                         std::to_string(result->events) + " complete events";
    if (!result->structure_error.empty()) detail += " (" + result->structure_error + ")";
    trace.problems.Add(DataProblem::kTruncated, std::move(detail));
  }
  if (!result->check_error.empty())
    trace.problems.Add(DataProblem::kCorruptGzip, result->check_error);
  sink.builder().Finish();
  return trace;
}

}  // namespace

StatusOr<Trace> ImportKinetoFile(const std::string& path, const KinetoImportOptions& options) {
  auto source = OpenByteSource(path);
  if (!source.ok()) return source.status();
  return ImportFromSource(**source, path, options);
}

StatusOr<Trace> ImportKinetoBytes(std::string_view content, const std::string& name,
                                  const KinetoImportOptions& options) {
  MemorySource source(content);
  return ImportFromSource(source, name, options);
}

}  // namespace gpuwhy
