// The diagnosis parts of the reports (findings, checklist, notes), shared by the text,
// JSON and Markdown renderers. Formatting only: the numbers come from the Diagnosis.
#pragma once

#include <string>

#include "base/json_writer.h"
#include "diagnose/diagnose.h"
#include "replay/replay.h"
#include "report/report.h"
#include "report/text_sections.h"

namespace gpuwhy::report {

// "62.3 %", "12.345 ms", "1.50 GiB", "1,234": a metric value in its unit.
std::string MetricValue(double value, std::string_view unit);
// "[GPU 0 stream 7 step 12]" for a scope narrower than the rank, else "".
std::string ScopeText(const MetricScope& scope);
// "step.dataloader_pct = 62.3 % > 5.0 %": the metric, and the threshold when one fired.
std::string EvidenceText(const FindingEvidence& e);
// "GPU 0 +1,234.567 ms for 75.000 ms: input_wait: enumerate(DataLoader)…".
std::string RangeText(const EvidenceRange& r, TimeNs origin);
// "dmesg.txt:12: NVRM: Xid (PCI:0000:9b:00): 119, …" with the file's base name.
std::string QuoteText(const SourceQuote& q);
// "2.65×".
std::string SpeedupText(double speedup);
// "step 12.3 ms (mean of 5); GPU idle 4.5 ms/step (36.6 %)", or for a profiler summary its
// kernel time and that idle is unknown. "" when the diagnosis has no reference time.
std::string StepAndIdleText(const Diagnosis& d);
// The line under a verdict without findings: no rule fired, or (no rule was even evaluated:
// an input that only joins others, such as an Nsight Compute export alone) nothing assessed.
std::string NoFindingText(const Diagnosis& d);
// What `--hta-compat` changed, for the rank header of every format.
std::string HtaCompatText(const TraceAnalysis& a);

// The verdict: a summary line, the ranked findings, the notes and the checklist.
void RenderDiagnosisText(std::string& out, const Section& s, const Diagnosis& d);
// The analysis tables after the verdict (every section but the header and import stats).
void RenderAnalysisTables(std::string& out, const Section& s);

// "verdict", "findings", "checklist" and "notes" fields of a rank object.
void WriteDiagnosisJson(JsonWriter& w, const Diagnosis& d);
// The rank's "replay" object (replay_json.cc, docs/metrics/critical_path.md).
void WriteReplayJson(JsonWriter& w, const ReplayResult& r);
// One line: replay error and the critical path's largest classes (replay_json.cc).
std::string ReplayText(const ReplayResult& r);
// "key": value, or null for -1 (all / unknown), as every scope in the JSON report.
void WriteOptionalInt(JsonWriter& w, std::string_view key, int64_t value);
// A kernel's measured roofline: "roofline_class", "rule" and the SM, memory, DRAM and achieved
// occupancy percentages (null where the export had no such metric), for `info` of an export
// and for a trace's joined kernels alike.
void WriteRooflineJson(JsonWriter& w, const KernelRoofline& r);
// "scope": {"rank", "device", "stream", "step"} with null for "all".
void WriteMetricScope(JsonWriter& w, const MetricScope& scope);

}  // namespace gpuwhy::report
