// Streams the original trace through and appends the added tracks. Each original event is
// written as the exact bytes the splitter cut out, so nothing the importer does not model
// (unknown fields, float formatting, key order) is lost.
#include <fmt/format.h>

#include "annotate/annotate.h"
#include "annotate/trace_output.h"
#include "base/file_input.h"
#include "base/json_writer.h"

namespace gpuwhy {
namespace {

constexpr size_t kChunkBytes = 4 << 20;
}  // namespace

Status WriteAnnotatedTrace(const std::string& input, const AnnotationTracks& tracks,
                           const std::string& output) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(input));
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenOutputSink(output));
  BufferedTraceOutput out(*sink);
  out.buffer() = "{\"traceEvents\":[";
  bool first = true;
  EventCopySink copy(out, first, nullptr);
  JsonEventSplitter splitter(*source, kChunkBytes);
  ASSIGN_OR_RETURN(JsonEventSplitter::Result result, splitter.Run(copy));
  AppendTracks(out, first, tracks);
  std::string& b = out.buffer();
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
                  fmt::format("{}: byte {}: truncated: the events read before it were annotated",
                              input, result.truncated_at));
  }
  return Status::Ok();
}

Status WriteTracksFragment(const AnnotationTracks& tracks, const std::string& output) {
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenOutputSink(output));
  BufferedTraceOutput out(*sink);
  out.buffer() = "{\"traceEvents\":[";
  bool first = true;
  AppendTracks(out, first, tracks);
  out.buffer() += "\n]}\n";
  out.Flush();
  RETURN_IF_ERROR(out.status());
  return sink->Close();
}

}  // namespace gpuwhy
