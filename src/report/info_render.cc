#include "base/bytes.h"
#include "report/info_render.h"

#include <fmt/format.h>

#include "base/json_writer.h"
#include "base/text_escape.h"
#include "report/diagnosis_sections.h"
#include "report/info_sections.h"
#include "report/terminal_style.h"

namespace gpuwhy {

void InfoLine(std::string& out, std::string_view text) {
  out.append(FitWidth(text::EscapeControl(text), kReportWidth));
  out.push_back('\n');
}

void InfoField(std::string& out, std::string_view label, std::string_view value) {
  InfoLine(out, fmt::format("  {:<{}}{}", label, kInfoLabelWidth, value));
}

namespace {


void Field(std::string& out, std::string_view label, std::string_view value) {
  InfoField(out, label, value);
}

std::string ComputeCapability(const DeviceSummary& device) {
  if (device.compute_major < 0) return "";
  return fmt::format("cc {}.{}", device.compute_major, std::max(device.compute_minor, 0));
}

std::string DeviceLine(const DeviceSummary& device) {
  // Names are cut so the numbers after them always fit on the line.
  std::string line =
      fmt::format("GPU {}  {}", device.id,
                  device.name.empty() ? "(no properties recorded)" : FitWidth(device.name, 40));
  if (device.sm_count > 0) line += fmt::format("  {} SMs", device.sm_count);
  if (device.memory_bytes > 0) {
    line += fmt::format("  {:.1f} GiB", static_cast<double>(device.memory_bytes) / kGiB);
  }
  if (std::string cc = ComputeCapability(device); !cc.empty()) line += "  " + cc;
  if (!device.active) line += "  (idle)";
  return line;
}

std::string RankText(const InfoSummary& s) {
  if (s.rank == kNoValue) return "unknown (single process, or no distributedInfo)";
  std::string text = fmt::format("{}", s.rank);
  if (s.world_size != kNoValue) text += fmt::format(" of {}", s.world_size);
  text += fmt::format(" (from {}", RankSourceName(s.rank_source));
  if (!s.distributed_backend.empty()) text += ", backend " + s.distributed_backend;
  return text + ")";
}

std::string SizeText(const TraceMetadata& m) {
  if (!m.compressed) return FormatBytes(m.file_size_bytes) + ", not compressed";
  return fmt::format("{} gzip, {} decompressed", FormatBytes(m.file_size_bytes),
                     FormatBytes(m.content_bytes));
}

std::string StepsText(const InfoSummary& s) {
  if (s.steps_synthesized) {
    return fmt::format("no ProfilerStep: one synthesized step spanning the trace ({:.3f} ms)",
                       NsToMs(s.mean_step_ns));
  }
  return fmt::format("{} ProfilerStep (#{} to #{}), host range mean {:.3f} ms", s.step_count,
                     s.first_step, s.last_step, NsToMs(s.mean_step_ns));
}

void RenderCounts(std::string& out, const InfoSummary& s) {
  InfoLine(out, "  events");
  for (const EventCount& count : s.counts) {
    InfoLine(out, fmt::format("    {:<28}{:>14}", count.label, GroupDigits(count.value)));
    if (count.id != "memcpy") continue;
    for (const MemcpyCount& copy : s.memcpy) {
      std::string label = fmt::format("{} {} -> {}", CopyDirectionName(copy.direction),
                                      MemoryKindName(copy.src_kind), MemoryKindName(copy.dst_kind));
      InfoLine(out, fmt::format("      {:<26}{:>14}  {}", label, GroupDigits(copy.count),
                            FormatBytes(static_cast<uint64_t>(copy.bytes))));
    }
  }
}

std::string SeverityText(ProblemSeverity severity, ColourMode colour) {
  std::string_view name = SeverityName(severity);
  std::string padding(10 - std::min<size_t>(name.size(), 10), ' ');
  if (severity == ProblemSeverity::kError) return Styled(colour, Style::kRed, name) + padding;
  if (severity == ProblemSeverity::kDataLoss) return Styled(colour, Style::kYellow, name) + padding;
  return Styled(colour, Style::kDim, name) + padding;
}

}  // namespace

void RenderImportStats(std::string& out, const DataProblems& problems, ColourMode colour) {
  if (problems.empty()) {
    Field(out, "import", "clean: no import stats");
    return;
  }
  InfoLine(out, "  import stats");
  for (DataProblem kind : problems.Kinds()) {
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    std::string_view detail = problems.Detail(kind);
    // Columns: id, value, severity (styled, fixed width), detail fitted to what is left.
    std::string line =
        fmt::format("    {:<26}{:>12}  ", FitWidth(info.id, 25), GroupDigits(problems.Get(kind)));
    line += SeverityText(info.severity, colour);
    if (!detail.empty()) line += FitWidth(detail, kReportWidth - 4 - 26 - 12 - 2 - 10);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    InfoLine(out, fmt::format("      {}", info.description));
  }
}

namespace {

void RenderOne(std::string& out, const InfoSummary& s, ColourMode colour) {
  const TraceMetadata& m = s.metadata;
  out += Styled(colour, Style::kBold, FitWidthKeepEnd(text::EscapeControl(m.path), kReportWidth)) +
         "\n";
  std::string format = fmt::format("{}, {}", m.format.empty() ? "unknown" : m.format,
                                   SchemaGenerationName(m.schema));
  if (m.schema_version != kNoValue) format += fmt::format(", schema version {}", m.schema_version);
  if (m.vendor != GpuVendor::kUnknown) format += fmt::format(", {}", GpuVendorName(m.vendor));
  Field(out, "format", format);
  Field(out, "size", SizeText(m));
  Field(out, "rank", RankText(s));
  if (s.devices.empty()) Field(out, "devices", "none recorded");
  for (size_t i = 0; i < s.devices.size(); ++i) {
    Field(out, i == 0 ? "devices" : "", DeviceLine(s.devices[i]));
  }
  Field(out, "span", fmt::format("{:.3f} ms", NsToMs(s.span_ns)));
  Field(out, "steps", StepsText(s));
  // The host ranges of every step; analyze's step time extends the steps it keeps to the end
  // of their GPU work, so the two are named apart.
  if (!s.steps_synthesized)
    Field(out, "", "(analyze's step time runs each kept step to the end of its GPU work)");
  RenderCounts(out, s);
  RenderImportStats(out, s.problems, colour);
}

void WriteDevices(JsonWriter& w, const InfoSummary& s) {
  w.Key("devices");
  w.BeginArray();
  for (const DeviceSummary& d : s.devices) {
    w.BeginObject();
    w.Field("id", d.id);
    w.Field("name", d.name);
    w.FieldOrNull("sm_count", d.sm_count, d.sm_count >= 0);
    w.FieldOrNull("memory_bytes", d.memory_bytes, d.memory_bytes != kNoValue);
    w.Key("compute_capability");
    if (d.compute_major < 0) {
      w.Null();
    } else {
      w.String(fmt::format("{}.{}", d.compute_major, std::max(d.compute_minor, 0)));
    }
    w.Field("active", d.active);
    w.EndObject();
  }
  w.EndArray();
}

void WriteCounts(JsonWriter& w, const InfoSummary& s) {
  w.Key("counts");
  w.BeginObject();
  for (const EventCount& count : s.counts) w.Field(count.id, count.value);
  w.EndObject();
  w.Key("memcpy");
  w.BeginArray();
  for (const MemcpyCount& copy : s.memcpy) {
    w.BeginObject();
    w.Field("direction", CopyDirectionName(copy.direction));
    w.Field("src_kind", MemoryKindName(copy.src_kind));
    w.Field("dst_kind", MemoryKindName(copy.dst_kind));
    w.Field("count", copy.count);
    w.Field("bytes", copy.bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("raw_event_counts");
  w.BeginObject();
  for (const auto& [key, value] : s.metadata.raw_event_counts) w.Field(key, value);
  w.EndObject();
}

}  // namespace

void WriteImportStats(JsonWriter& w, const DataProblems& problems) {
  w.Key("import_stats");
  w.BeginArray();
  for (DataProblem kind : problems.Kinds()) {
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    w.BeginObject();
    w.Field("id", info.id);
    w.Field("severity", SeverityName(info.severity));
    w.Field("value", problems.Get(kind));
    w.Field("detail", problems.Detail(kind));
    w.Field("description", info.description);
    w.EndObject();
  }
  w.EndArray();
}

namespace {

void WriteOne(JsonWriter& w, const InfoSummary& s) {
  const TraceMetadata& m = s.metadata;
  w.BeginObject();
  w.Field("path", m.path);
  w.Field("format", m.format);
  w.Field("schema", SchemaGenerationId(m.schema));
  w.FieldOrNull("schema_version", m.schema_version, m.schema_version != kNoValue);
  w.Field("vendor", GpuVendorName(m.vendor));
  w.Field("file_bytes", m.file_size_bytes);
  w.Field("content_bytes", m.content_bytes);
  w.Field("compressed", m.compressed);
  w.Key("metadata");
  w.BeginObject();
  for (const auto& [key, value] : m.extra) w.Field(key, value);
  w.EndObject();
  w.FieldOrNull("rank", s.rank, s.rank != kNoValue);
  w.FieldOrNull("world_size", s.world_size, s.world_size != kNoValue);
  w.Field("rank_source", RankSourceName(s.rank_source));
  WriteDevices(w, s);
  w.Field("span_ms", NsToMs(s.span_ns));
  w.Key("steps");
  w.BeginObject();
  w.Field("count", s.step_count);
  w.Field("synthesized", s.steps_synthesized);
  w.FieldOrNull("first", s.first_step, s.first_step != kNoValue);
  w.FieldOrNull("last", s.last_step, s.last_step != kNoValue);
  w.Field("mean_ms", NsToMs(s.mean_step_ns));
  w.EndObject();
  WriteCounts(w, s);
  WriteImportStats(w, s.problems);
  w.EndObject();
}

std::string OptionalPct(const std::optional<double>& pct) {
  return pct ? fmt::format("{:.1f}%", *pct) : "-";
}

std::string LaunchShape(const ProfiledKernelInfo& k) {
  if (k.grid_blocks < 0 || k.block_threads < 0) return "-";
  return fmt::format("{}x{}", GroupDigits(k.grid_blocks), k.block_threads);
}

// One Nsight Compute export: its kernels with the class, the numbers and the deciding rule.
void RenderProfile(std::string& out, const KernelProfileSummary& p, ColourMode colour) {
  out += Styled(colour, Style::kBold, FitWidthKeepEnd(text::EscapeControl(p.path), kReportWidth)) +
         "\n";
  Field(out, "format", fmt::format("Nsight Compute CSV, {} page", NcuLayoutName(p.layout)));
  Field(out, "kernels",
        fmt::format("{} profiled launches, {} metric values", p.kernels.size(),
                    GroupDigits(p.metric_count)));
  InfoLine(out, fmt::format("  {:>4}  {:<17}{:>7}{:>8}{:>7}  {:<11}{}", "id", "roofline class", "SM",
                        "memory", "occup.", "grid x blk", "kernel"));
  for (const ProfiledKernelInfo& k : p.kernels) {
    const KernelRoofline& r = k.roofline;
    InfoLine(out, fmt::format("  {:>4}  {:<17}{:>7}{:>8}{:>7}  {:<11}{}", k.id,
                          RooflineClassName(r.roofline_class), OptionalPct(r.sm_pct),
                          OptionalPct(r.memory_pct), OptionalPct(r.achieved_occupancy_pct),
                          LaunchShape(k), k.name));
    InfoLine(out, fmt::format("        rule: {}", r.rule));
  }
  RenderImportStats(out, p.problems, colour);
}

void WriteProfile(JsonWriter& w, const KernelProfileSummary& p) {
  w.BeginObject();
  w.Field("path", p.path);
  w.Field("format", "ncu_csv");
  w.Field("layout", NcuLayoutName(p.layout));
  w.Field("kernel_count", static_cast<int64_t>(p.kernels.size()));
  w.Field("metric_count", p.metric_count);
  w.Key("kernels");
  w.BeginArray();
  for (const ProfiledKernelInfo& k : p.kernels) {
    const KernelRoofline& r = k.roofline;
    w.BeginObject();
    w.Field("id", k.id);
    w.Field("name", k.name);
    w.Field("grid_blocks", k.grid_blocks);
    w.Field("block_threads", k.block_threads);
    w.Field("metrics", static_cast<int64_t>(k.metrics));
    report::WriteRooflineJson(w, r);
    w.FieldOrNull("theoretical_occupancy_pct", r.theoretical_occupancy_pct);
    w.FieldOrNull("tensor_pipe_pct", r.tensor_pipe_pct);
    w.FieldOrNull("duration_ns", r.duration_ns);
    w.FieldOrNull("dram_bytes", r.dram_bytes);
    w.EndObject();
  }
  w.EndArray();
  WriteImportStats(w, p.problems);
  w.EndObject();
}

}  // namespace

std::string RenderInfoText(const std::vector<InfoSummary>& summaries, ColourMode colour,
                           const std::vector<MemoryInfoSummary>& memory,
                           const std::vector<KernelProfileSummary>& profiles) {
  std::string out;
  for (size_t i = 0; i < summaries.size(); ++i) {
    if (i > 0) out.push_back('\n');
    RenderOne(out, summaries[i], colour);
  }
  for (const MemoryInfoSummary& m : memory) {
    if (!out.empty()) out.push_back('\n');
    RenderMemoryInfo(out, m, colour);
  }
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (!out.empty()) out.push_back('\n');
    RenderProfile(out, profiles[i], colour);
  }
  return TerminalText(out, colour);
}

std::string RenderInfoJson(const std::vector<InfoSummary>& summaries,
                           const std::vector<InfoFailure>& failures,
                           const std::vector<MemoryInfoSummary>& memory,
                           const std::vector<KernelProfileSummary>& profiles) {
  JsonWriter w;
  w.BeginObject();
  w.Key("files");
  w.BeginArray();
  for (const InfoSummary& s : summaries) WriteOne(w, s);
  w.EndArray();
  if (!memory.empty()) {  // only then, so trace-only output is unchanged
    w.Key("memory_snapshots");
    w.BeginArray();
    for (const MemoryInfoSummary& m : memory) WriteMemoryInfo(w, m);
    w.EndArray();
  }
  if (!profiles.empty()) {
    w.Key("kernel_profiles");
    w.BeginArray();
    for (const KernelProfileSummary& p : profiles) WriteProfile(w, p);
    w.EndArray();
  }
  WriteFailures(w, failures);
  w.EndObject();
  return w.str();
}

std::string FormatBytes(uint64_t bytes) {
  constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  for (value /= 1024; value >= 1024 && unit + 1 < std::size(kUnits); value /= 1024) ++unit;
  if (value < 10) return fmt::format("{:.2f} {}", value, kUnits[unit]);
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace gpuwhy
