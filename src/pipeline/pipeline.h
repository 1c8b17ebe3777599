// gpuwhy's one pipeline: inputs → classify (ingest/input_kind.h) → import → analyze → diagnose
// → summarize per rank → cross-rank → one Report. Every command that reads inputs calls it
// (analyze, info, diff, annotate, run, doctor), so --set, --config and --step-range mean the
// same everywhere, and which importer reads which kind of input is decided in one table
// (pipeline_inputs.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"
#include "model/memory_snapshot.h"
#include "model/memory_timeline.h"
#include "pipeline/pipeline_inputs.h"
#include "pipeline/report_model.h"
#include "ranks/cross_rank.h"

namespace gpuwhy {

// Called on each analysed trace (from a worker thread: it must be thread-safe) while its
// trace and analyses are alive, before they are reduced to the summary.
using OnTrace = std::function<void(const std::string& path, const Trace&, const TraceAnalysis&,
                                   const Diagnosis&)>;

struct PipelineOptions {
  AnalysisOptions analysis;
  DiagnoseOptions diagnose;  // the catalog with --config and --set applied
  ImportOptions import;      // --step-range
  InputPolicy accept;        // which kinds of input this command reads
  // The node logs' report header ("doctor: a, b"); empty: "doctor: " and the node inputs read.
  std::string node_source;
  size_t jobs = 0;  // traces imported at once; 0: one per core
  // Full per-rank reports are kept only up to this many traces; above it only summaries
  // stay in memory, so a 64-rank job needs the memory of `jobs` traces, not 64.
  size_t max_reports = 16;
  // ... unless the trace files total at most this (a folder of small traces keeps them all).
  uintmax_t max_report_input_bytes = uintmax_t{1} << 30;
  // Frees what the report renderers never read (timelines, per-launch rows) once the
  // diagnosis and the summary have read it, so many large traces fit in memory.
  bool drop_render_unused = false;
  // Whether each summary keeps every kernel name (gpuwhy diff compares them).
  SummaryKernelStats summary_kernel_stats = SummaryKernelStats::kOmit;
  OnTrace on_trace;
  // The cross-rank analysis and its diagnosis (when the ranks are one job).
  bool cross_rank = true;
  CrossRankOptions cross_rank_options;
  std::string baseline_single;  // a one-GPU trace of the same model: scaling efficiency
};

// Runs the pipeline over files and folders. Never fails as a whole: each input that cannot be
// used is one ReportFailure ("PATH: why", in the order described on Report) and the others are
// analysed.
Report RunPipeline(const std::vector<std::string>& inputs, const PipelineOptions& options);

// A metric series set (a log, a recording, a live window) as a report: its header and the
// signal diagnosis.
RankReport ReportSeries(const MetricSeriesSet& set, const DiagnoseOptions& options);

// An allocator memory snapshot as a report: its devices and the memory diagnosis.
RankReport ReportMemorySnapshot(const MemorySnapshot& snapshot, const DiagnoseOptions& options);

// A profiler memory timeline as a report: the peak and its categories (memory_timeline_report.cc).
RankReport ReportMemoryTimeline(const MemoryTimeline& timeline, const DiagnoseOptions& options);

}  // namespace gpuwhy
