// `gpuwhy info` of an allocator snapshot: what the file holds, before any analysis.
#include <fmt/format.h>

#include "base/text_escape.h"
#include "base/text_width.h"
#include "report/info_render.h"
#include "report/info_sections.h"

namespace gpuwhy {
namespace {

std::string Bytes(int64_t bytes) {
  return FormatBytes(static_cast<uint64_t>(std::max<int64_t>(bytes, 0)));
}

std::string DevicesText(const MemoryInfoSummary& s) {
  if (s.devices.empty()) return "none recorded";
  std::string out;
  for (int32_t d : s.devices) out += (out.empty() ? "GPU " : ", GPU ") + std::to_string(d);
  return out + "  (capacity not recorded in a snapshot)";
}

std::string SettingsText(const AllocatorSettings& a) {
  if (!a.recorded) return "not recorded (older PyTorch)";
  std::string out = a.expandable_segments ? fmt::format("expandable_segments {}",
                                                        *a.expandable_segments ? "on" : "off")
                                          : "expandable_segments unknown";
  if (a.max_split_size) {
    out += *a.max_split_size < 0 ? ", max_split_size unlimited"
                                 : ", max_split_size " + Bytes(*a.max_split_size);
  }
  out += a.alloc_conf.empty() ? ", PYTORCH_CUDA_ALLOC_CONF unset"
                              : ", PYTORCH_CUDA_ALLOC_CONF=" + a.alloc_conf;
  return out;
}

std::string SpanText(const MemoryInfoSummary& s) {
  if (s.first_time == kNoValue) return "no timed trace entries";
  return fmt::format("{:.3f} ms ({} trace entries)", NsToMs(s.last_time - s.first_time),
                     GroupDigits(s.trace_entries));
}

}  // namespace

void RenderMemoryInfo(std::string& out, const MemoryInfoSummary& s, ColourMode colour) {
  if (s.timeline) {
    RenderMemoryTimelineInfo(out, s, colour);
    return;
  }
  out += Styled(colour, Style::kBold, FitWidthKeepEnd(text::EscapeControl(s.path), kReportWidth)) +
         "\n";
  InfoField(
      out, "format",
      fmt::format("PyTorch allocator snapshot, pickle protocol {}", s.layout.pickle_protocol));
  InfoField(out, "", s.version_hint);
  if (!s.optional_fields.empty()) InfoField(out, "", "fields: " + s.optional_fields);
  InfoField(out, "size", Bytes(static_cast<int64_t>(s.file_bytes)));
  InfoField(out, "devices", DevicesText(s));
  InfoField(out, "segments",
            fmt::format("{} ({} large, {} small, {} expandable)", GroupDigits(s.segments),
                        GroupDigits(s.large_segments), GroupDigits(s.small_segments),
                        GroupDigits(s.expandable_segments)));
  InfoField(out, "reserved",
            fmt::format("{} reserved, {} allocated, {} active, {} requested", Bytes(s.total_bytes),
                        Bytes(s.allocated_bytes), Bytes(s.active_bytes), Bytes(s.requested_bytes)));
  InfoField(out, "allocator", SettingsText(s.settings));
  InfoField(out, "span", SpanText(s));
  InfoLine(out, "  blocks");
  for (size_t i = 0; i < kBlockStateCount; ++i) {
    const CountAndBytes& c = s.blocks[i];
    if (c.count == 0) continue;
    InfoLine(out, fmt::format("    {:<28}{:>14}  {}", BlockStateName(static_cast<BlockState>(i)),
                              GroupDigits(c.count), Bytes(c.bytes)));
  }
  if (s.largest_inactive_block > 0)
    InfoLine(out, fmt::format("    largest inactive block      {:>14}",
                              Bytes(s.largest_inactive_block)));
  InfoLine(out, "  trace entries");
  if (s.trace_entries == 0) InfoLine(out, "    none (no _record_memory_history before the dump)");
  for (size_t i = 0; i < kMemoryActionCount; ++i) {
    const CountAndBytes& c = s.actions[i];
    if (c.count == 0) continue;
    InfoLine(out,
             fmt::format("    {:<28}{:>14}  {}", MemoryActionName(static_cast<MemoryAction>(i)),
                         GroupDigits(c.count), Bytes(c.bytes)));
  }
  InfoField(out, "frames",
            fmt::format("{} distinct frames in {} distinct stacks; {} annotations",
                        GroupDigits(s.frames), GroupDigits(s.stacks), GroupDigits(s.annotations)));
  RenderImportStats(out, s.problems, colour);
}

void WriteMemoryInfo(JsonWriter& w, const MemoryInfoSummary& s) {
  if (s.timeline) {
    WriteMemoryTimelineInfo(w, s);
    return;
  }
  w.BeginObject();
  w.Field("path", s.path);
  w.Field("format", "pytorch_memory_snapshot");
  w.Field("file_bytes", static_cast<int64_t>(s.file_bytes));
  w.Field("pickle_protocol", static_cast<int64_t>(s.layout.pickle_protocol));
  w.Field("version_hint", s.version_hint);
  w.Field("optional_fields", s.optional_fields);
  w.Key("devices");
  w.BeginArray();
  for (int32_t d : s.devices) w.Int(d);
  w.EndArray();
  w.Key("segments");
  w.BeginObject();
  w.Field("count", s.segments);
  w.Field("large", s.large_segments);
  w.Field("small", s.small_segments);
  w.Field("expandable", s.expandable_segments);
  w.Field("total_bytes", s.total_bytes);
  w.Field("allocated_bytes", s.allocated_bytes);
  w.Field("active_bytes", s.active_bytes);
  w.Field("requested_bytes", s.requested_bytes);
  w.EndObject();
  const auto counts = [&](const CountAndBytes& c) {
    w.BeginObject();
    w.Field("count", c.count);
    w.Field("bytes", c.bytes);
    w.EndObject();
  };
  w.Key("blocks");
  w.BeginObject();
  w.Key("by_state");
  w.BeginObject();
  for (size_t i = 0; i < kBlockStateCount; ++i) {
    w.Key(BlockStateName(static_cast<BlockState>(i)));
    counts(s.blocks[i]);
  }
  w.EndObject();
  w.Field("largest_inactive_bytes", s.largest_inactive_block);
  w.EndObject();
  w.Key("trace");
  w.BeginObject();
  w.Field("count", s.trace_entries);
  w.Key("by_action");
  w.BeginObject();
  for (size_t i = 0; i < kMemoryActionCount; ++i) {
    w.Key(MemoryActionName(static_cast<MemoryAction>(i)));
    counts(s.actions[i]);
  }
  w.EndObject();
  // Microseconds, as the snapshot records them (exact; no float rounding).
  w.FieldOrNull("first_time_us", s.first_time / 1000, s.first_time != kNoValue);
  w.FieldOrNull("last_time_us", s.last_time / 1000, s.last_time != kNoValue);
  w.EndObject();
  w.Key("allocator_settings");
  w.BeginObject();
  w.Field("recorded", s.settings.recorded);
  w.Field("alloc_conf", s.settings.alloc_conf);
  w.Key("expandable_segments");
  if (s.settings.expandable_segments) {
    w.Bool(*s.settings.expandable_segments);
  } else {
    w.Null();
  }
  w.FieldOrNull("max_split_size", s.settings.max_split_size.value_or(0),
                s.settings.max_split_size.has_value());
  w.EndObject();
  w.Field("frames", s.frames);
  w.Field("stacks", s.stacks);
  w.Field("annotations", s.annotations);
  WriteImportStats(w, s.problems);
  w.EndObject();
}

}  // namespace gpuwhy
