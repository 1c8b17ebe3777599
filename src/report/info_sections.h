// The pieces `gpuwhy info` renders for every kind of input (info_render.cc: traces;
// memory_info_render.cc: allocator snapshots): one line fitted to the width, a labelled field,
// the import stats in text and JSON, and each kind's own section.
#pragma once

#include <string>
#include <string_view>

#include "base/json_writer.h"
#include "model/data_problems.h"
#include "pipeline/memory_info_summary.h"
#include "report/terminal_style.h"

namespace gpuwhy {

inline constexpr size_t kInfoLabelWidth = 12;

// Appends |text| escaped and cut to kReportWidth, then a newline.
void InfoLine(std::string& out, std::string_view text);
// "  LABEL       value", the label padded to kInfoLabelWidth.
void InfoField(std::string& out, std::string_view label, std::string_view value);
void RenderImportStats(std::string& out, const DataProblems& problems, ColourMode colour);
void WriteImportStats(JsonWriter& w, const DataProblems& problems);

void RenderMemoryInfo(std::string& out, const MemoryInfoSummary& s, ColourMode colour);
void WriteMemoryInfo(JsonWriter& w, const MemoryInfoSummary& s);
// The same for a profiler memory timeline (memory_timeline_render.cc); |s.timeline| is set.
void RenderMemoryTimelineInfo(std::string& out, const MemoryInfoSummary& s, ColourMode colour);
void WriteMemoryTimelineInfo(JsonWriter& w, const MemoryInfoSummary& s);

}  // namespace gpuwhy
