// The one result of gpuwhy's pipeline, the thing every renderer reads: per input a RankReport
// (a trace's analyses and diagnosis, or a metric log's or node logs' diagnosis alone), the
// inputs that failed, and the job-wide view when the ranks are one distributed job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/memory_timeline_series.h"
#include "base/interval_set.h"
#include "diagnose/diagnose.h"
#include "model/kernel_profile.h"
#include "model/metric_series.h"
#include "model/profile_summary.h"
#include "model/trace.h"
#include "ranks/cross_rank.h"
#include "ranks/rank_summary.h"
#include "replay/replay.h"

namespace gpuwhy {

struct ReportDevice {
  int32_t id = 0;
  std::string name;                 // empty when the trace has no deviceProperties entry
  int64_t memory_bytes = kNoValue;  // total memory, when recorded
  bool active = false;              // ran at least one GPU op
};

// What the report needs from the trace itself, copied out so the trace can be freed.
struct RankHeader {
  std::string path;
  int64_t rank = kNoValue;
  int64_t world_size = kNoValue;
  std::string vendor;  // "nvidia", "amd", ...
  std::vector<ReportDevice> devices;
  Interval span;          // the trace's own span; time ranges print relative to span.start
  DataProblems problems;  // the trace's or the metric series' own
};

RankHeader SummarizeTraceHeader(const Trace& trace);
// The header a report shows for metric series: the devices they name and the importer's issues.
RankHeader SummarizeSeriesHeader(const MetricSeriesSet& set);
// The header of a profiler's summary report: its path, the GPU it names, its unread rows.
RankHeader SummarizeProfileSummaryHeader(const ProfileSummary& summary);

struct RankReport {
  RankHeader header;
  TraceAnalysis analysis;
  Diagnosis diagnosis;  // rendered first: the verdict, then the tables that support it
  // A profiler summary report's metrics (summary.*), in the JSON report; empty otherwise.
  MetricSet summary_metrics;
  // Memory over time, bounded (the HTML memory timeline): from a trace's [memory] events, an
  // allocator snapshot's trace or a profiler memory timeline; no device otherwise.
  MemorySeriesResult memory_series;
  // The dependency-graph replay: replay error, critical path, what-ifs (src/replay).
  ReplayResult replay;
};

// False for a report without a trace (`gpuwhy doctor`, `gpuwhy run` without a profiler): its
// header.path names the source ("doctor: this machine", a bundle directory), its analysis is
// empty, and renderers show the diagnosis only (no trace header fields, tables or import
// stats).
bool HasTraceAnalysis(const RankReport& rank);

// An input that could not be used; |message| is the full "PATH: why" text.
struct ReportFailure {
  std::string path;
  std::string message;
};

// The cross-rank view: the analysis over every rank's summary and its job-wide findings.
struct CrossRankReport {
  CrossRankResult result;
  Diagnosis diagnosis;  // job-wide findings (DiagnoseCrossRank)
};

struct Report {
  // Traces (input order, one per process of an Nsight Systems export), then metric logs, then
  // the node logs' own report when no trace or metric log was given (otherwise their
  // platform findings are merged into every rank).
  std::vector<RankReport> ranks;
  std::vector<RankSummary> summaries;  // one per analysed trace and per summary file read
  std::optional<CrossRankReport> job;  // two ranks or more of one distributed job
  std::vector<ReportFailure> failures;
  // Inputs that were read but lost data (cut short, events skipped): still analysed, listed
  // here as "PATH: what was lost" for the warning line (README: exit codes).
  std::vector<ReportFailure> data_loss;
  // Nsight Compute exports read; every trace's analysis joins its top kernels to them (and
  // points into them: the report owns them).
  std::vector<KernelProfile> kernel_profiles;
  size_t trace_count = 0;         // trace files analysed (not summary files)
  bool reports_left_out = false;  // more traces than PipelineOptions::max_reports
};

// The single-rank diagnosis reduced to the summary's finding list.
std::vector<SummaryFinding> SummarizeFindings(const Diagnosis& diagnosis);

}  // namespace gpuwhy
