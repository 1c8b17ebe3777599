// The HTML report's parts, shared by html_report.cc (page and analyses) and html_verdict.cc
// (findings, checklist). Rendering only: every number comes from the analyses.
#pragma once

#include <string>

#include "report/report.h"

namespace gpuwhy::report::html {

// The page frame: <!DOCTYPE …> with the inline style and CSP, and the closing part with
// the inline table-sorting script.
std::string PageStart(std::string_view title);
std::string PageEnd();

// The verdict: summary line, ranked findings with all evidence, where, events, fixes and
// how to verify, then the notes.
void RenderVerdict(std::string& out, const RankHeader& header, const Diagnosis& d);
// The job's verdict over every rank (stragglers, job-wide exposed communication), the same
// cards as a rank's, with the cross-rank analysis' warnings; before the ranks' own sections.
void RenderJobVerdict(std::string& out, const CrossRankReport& job);
void RenderChecklistHtml(std::string& out, const Diagnosis& d);
// The memory timeline (html_memory.cc): per device allocated and reserved over time, OOM and
// segment events marked, and what was live at the peak; nothing when |m| has no device.
void RenderMemoryTimelineHtml(std::string& out, const RankHeader& h, const MemorySeriesResult& m);

// "<section id=… ><h2>title</h2>" … "</section>".
void OpenSection(std::string& out, std::string_view id, std::string_view title,
                 std::string_view summary = "");
void CloseSection(std::string& out);

// A table; |sortable| adds click-to-sort headers (numeric cells carry data-v).
struct Cell {
  std::string text;
  double sort_value = 0;
  bool numeric = false;
  std::string title;  // full text when |text| is shortened
};
void Table(std::string& out, const std::vector<std::string>& headers,
           const std::vector<std::vector<Cell>>& rows, bool sortable = false);
Cell Num(std::string text, double value);

}  // namespace gpuwhy::report::html
