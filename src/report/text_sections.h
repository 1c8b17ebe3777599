// The text report's sections, one function per analysis, shared by text_report*.cc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"
#include "report/report_rows.h"

namespace gpuwhy::report {

struct Section {
  const RankHeader& header;
  const TraceAnalysis& analysis;
  const TextReportOptions& options;
  // The per-step and per-device rows listed (all of them under the caps).
  ReportRows rows = SelectReportRows(header, analysis);
};

// A section title, bold when colour is on, followed by a short summary on the same line.
void Heading(std::string& out, const Section& s, std::string_view title, std::string_view summary);
// One "  n/a: REASON" line per reason (the analyses prefix reasons with what they concern).
void NotApplicableLines(std::string& out, const std::vector<std::string>& reasons);

void RenderHeader(std::string& out, const Section& s);
// "== SOURCE" and the devices, for a report without a trace (HasTraceAnalysis false).
void RenderSourceHeader(std::string& out, const Section& s);
void RenderUtilization(std::string& out, const Section& s);
void RenderTemporal(std::string& out, const Section& s);
void RenderHtaIdleSplit(std::string& out, const Section& s);
void RenderSteps(std::string& out, const Section& s);
void RenderIdleGaps(std::string& out, const Section& s);
void RenderKernels(std::string& out, const Section& s);
void RenderLaunch(std::string& out, const Section& s);
void RenderSyncCopies(std::string& out, const Section& s);
void RenderCommunication(std::string& out, const Section& s);
void RenderMemory(std::string& out, const Section& s);
void RenderDataQuality(std::string& out, const Section& s);
void RenderImportStats(std::string& out, const Section& s);

}  // namespace gpuwhy::report
