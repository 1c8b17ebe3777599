// `gpuwhy info` of a profiler memory timeline: its rows, its span, and the peak with what it was
// made of, by the profiler's categories.
#include <fmt/format.h>

#include "base/bytes.h"
#include "base/text_escape.h"
#include "base/text_width.h"
#include "report/info_render.h"
#include "report/info_sections.h"

namespace gpuwhy {
namespace {


std::string MiB(int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / kMiB); }

}  // namespace

void RenderMemoryTimelineInfo(std::string& out, const MemoryInfoSummary& m, ColourMode colour) {
  const MemoryTimelineStats& s = *m.timeline;
  out += Styled(colour, Style::kBold, FitWidthKeepEnd(text::EscapeControl(m.path), kReportWidth)) +
         "\n";
  InfoField(out, "format", "PyTorch profiler memory timeline (export_memory_timeline raw JSON)");
  InfoField(out, "size", FormatBytes(m.file_bytes));
  InfoField(out, "devices", "one (the exporter's device; capacity not recorded)");
  InfoField(out, "span",
            s.first_time == kNoValue
                ? std::string("no timed rows")
                : fmt::format("{:.3f} ms ({} rows)", NsToMs(s.last_time - s.first_time),
                              GroupDigits(s.entries)));
  InfoField(out, "peak",
            fmt::format("{} ({} B) {:.1f} ms after the first change", MiB(s.peak_bytes),
                        GroupDigits(s.peak_bytes), NsToMs(s.peak_offset)));
  InfoField(out, "bytes",
            fmt::format("{} before profiling, {} after the last row", MiB(s.preexisting_bytes),
                        MiB(s.final_bytes)));
  InfoLine(out, "  rows");
  for (size_t a = 0; a < kTimelineActionCount; ++a) {
    InfoLine(out,
             fmt::format("    {:<28}{:>14}", TimelineActionName(static_cast<TimelineAction>(a + 1)),
                         GroupDigits(s.actions[a])));
  }
  InfoLine(out, "  at the peak");
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    const int64_t bytes = s.peak_by_category[c];
    InfoLine(out, fmt::format("    {:<28}{:>14}  {:.1f}%",
                              MemoryCategoryName(static_cast<MemoryCategory>(c)), MiB(bytes),
                              s.peak_bytes > 0 ? 100.0 * bytes / s.peak_bytes : 0.0));
  }
  RenderImportStats(out, m.problems, colour);
}

void WriteMemoryTimelineInfo(JsonWriter& w, const MemoryInfoSummary& m) {
  const MemoryTimelineStats& s = *m.timeline;
  w.BeginObject();
  w.Field("path", m.path);
  w.Field("format", "pytorch_memory_timeline");
  w.Field("file_bytes", static_cast<int64_t>(m.file_bytes));
  w.Field("entries", s.entries);
  w.Key("by_action");
  w.BeginObject();
  for (size_t a = 0; a < kTimelineActionCount; ++a) {
    w.Field(TimelineActionName(static_cast<TimelineAction>(a + 1)), s.actions[a]);
  }
  w.EndObject();
  // Nanoseconds, as the file records them (exact; no float rounding).
  w.FieldOrNull("first_time_ns", s.first_time, s.first_time != kNoValue);
  w.FieldOrNull("last_time_ns", s.last_time, s.last_time != kNoValue);
  w.Field("preexisting_bytes", s.preexisting_bytes);
  w.Field("final_bytes", s.final_bytes);
  w.Key("peak");
  w.BeginObject();
  w.Field("bytes", s.peak_bytes);
  w.Field("offset_ns", static_cast<int64_t>(s.peak_offset));
  w.Key("by_category");
  w.BeginObject();
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    w.Field(MemoryCategoryName(static_cast<MemoryCategory>(c)), s.peak_by_category[c]);
  }
  w.EndObject();
  w.EndObject();
  WriteImportStats(w, m.problems);
  w.EndObject();
}

}  // namespace gpuwhy
