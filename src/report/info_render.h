// Renders `gpuwhy info` results. Pure functions of the summaries: no I/O, no model access.
#pragma once

#include <string>
#include <vector>

#include "base/text_width.h"
#include "pipeline/info_summary.h"
#include "pipeline/memory_info_summary.h"
#include "report/report.h"
#include "report/terminal_style.h"

namespace gpuwhy {

// An input that could not be read; |message| is the full "PATH: byte N: why" text.
using InfoFailure = ReportFailure;  // one shape for unreadable inputs in every report

// Human-readable, every line at most kReportWidth columns (escape codes aside); memory
// snapshots and then Nsight Compute exports (each kernel with its roofline class and rule)
// follow the traces.
std::string RenderInfoText(const std::vector<InfoSummary>& summaries, ColourMode colour,
                           const std::vector<MemoryInfoSummary>& memory = {},
                           const std::vector<KernelProfileSummary>& profiles = {});

// {"files": [...], "memory_snapshots": [...] (when any), "kernel_profiles": [...] (when any),
// "errors": [...]}; failures are also listed here for machine readers.
std::string RenderInfoJson(const std::vector<InfoSummary>& summaries,
                           const std::vector<InfoFailure>& failures,
                           const std::vector<MemoryInfoSummary>& memory = {},
                           const std::vector<KernelProfileSummary>& profiles = {});

// "512 B", "1.5 KiB", "12.3 MiB", "1.02 GiB".
std::string FormatBytes(uint64_t bytes);

}  // namespace gpuwhy
