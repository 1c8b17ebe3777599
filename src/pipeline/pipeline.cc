#include "pipeline/pipeline.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "base/guarded_read.h"
#include "base/huge_pages.h"
#include "base/thread_pool.h"
#include "diagnose/cross_rank_rules.h"
#include "diagnose/diagnose_signals.h"
#include "diagnose/diagnose_summary.h"
#include "diagnose/merge.h"
#include "diagnose/snapshot_rules/snapshot_rules.h"
#include "diagnose/summary_rules/profile_alone_rules.h"
#include "ingest/importer.h"
#include "ingest/memory/memory_summary_parser.h"
#include "ingest/memory/memory_timeline_importer.h"
#include "ingest/memory/snapshot_importer.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/ncu/ncu_csv_importer.h"
#include "ingest/summaries/profile_summary_reader.h"
#include "pipeline/node_report.h"
#include "pipeline/pipeline_inputs.h"
#include "pipeline/replay_findings.h"
#include "ranks/summary_identity.h"
#include "ranks/summary_json.h"

namespace gpuwhy {
namespace {

// One planned input's outcome; filled by a worker, read after the pool drains.
struct Slot {
  const PlannedInput* input = nullptr;
  // One per trace the file holds (an Nsight Systems export holds one per process).
  std::vector<RankReport> reports;
  std::vector<RankSummary> summaries;
  std::string error;
  std::vector<std::string> data_loss;  // "PATH: what was lost", one per input read with loss
  // A metric log read before the traces (ReadMetricLogsBesideTraces): its report reuses it.
  const MetricSeriesSet* preread = nullptr;
};

void NoteDataLoss(Slot& slot, const DataProblems& problems) {
  Status lost = DataLossStatus(slot.input->path, problems);
  if (!lost.ok()) slot.data_loss.push_back(lost.message());
}

// Keeps what the renderers read and frees the rest.
void DropRenderUnused(TraceAnalysis& analysis) {
  analysis.timelines = DeviceTimelines{};
  analysis.launch.launches = {};
  for (StreamQueue& queue : analysis.launch.queues) queue.series = {};
  analysis.sync_copies.blocking = {};
  analysis.communication.collectives = {};
  for (DeviceIdleGaps& device : analysis.idle_gaps.devices) device.by_cause = {};  // in series
}

void AnalyzeTraces(Slot& slot, const PipelineOptions& options, bool keep_report) {
  const std::string& path = slot.input->path;
  StatusOr<std::vector<Trace>> traces = ImportTraceFiles(path, slot.input->input, options.import);
  if (!traces.ok()) {
    slot.error = traces.status().message();
    return;
  }
  for (Trace& trace : *traces) {
    NoteDataLoss(slot, trace.problems);
    RankReport rank{SummarizeTraceHeader(trace), AnalyzeTrace(trace, options.analysis), {}};
    rank.diagnosis = Diagnose(trace, rank.analysis, options.diagnose);
    rank.replay = ComputeReplay(trace, rank.analysis);
    AttachReplayedSavings(rank.replay, rank.diagnosis);
    if (options.on_trace) options.on_trace(path, trace, rank.analysis, rank.diagnosis);
    RankSummary summary = SummarizeRank(trace, rank.analysis, options.summary_kernel_stats);
    summary.findings = SummarizeFindings(rank.diagnosis);
    slot.summaries.push_back(std::move(summary));
    if (!keep_report) continue;  // the trace and its analyses die here
    rank.memory_series = ComputeTraceMemorySeries(trace);
    if (options.drop_render_unused) DropRenderUnused(rank.analysis);
    slot.reports.push_back(std::move(rank));
    ReturnFreedMemory();  // the analyses' scratch: rendering allocates other sizes
  }
}

void ReadSummary(Slot& slot) {
  StatusOr<RankSummary> summary = ReadRankSummaryFile(slot.input->path);
  if (!summary.ok()) {
    slot.error = summary.status().message();
    return;
  }
  slot.summaries.push_back(std::move(*summary));
}

void ReadMetricLog(Slot& slot, const DiagnoseOptions& options) {
  if (slot.preread != nullptr) {
    slot.reports.push_back(ReportSeries(*slot.preread, options));
    return;
  }
  if (!slot.error.empty()) return;  // the read before the traces failed
  StatusOr<MetricSeriesSet> set = ImportMetricLog(slot.input->path);
  if (!set.ok()) {
    slot.error = set.status().message();
    return;
  }
  NoteDataLoss(slot, set->problems);
  slot.reports.push_back(ReportSeries(*set, options));
}

void ReadProfileSummarySlot(Slot& slot, const PipelineOptions& options) {
  StatusOr<ProfileSummary> summary = ReadProfileSummary(slot.input->path);
  if (!summary.ok()) {
    slot.error = summary.status().message();
    return;
  }
  NoteDataLoss(slot, summary->problems);
  ProfileSummaryAnalysis analysis = AnalyzeProfileSummary(*summary, options.analysis.top_n);
  RankReport report;
  report.header = SummarizeProfileSummaryHeader(*summary);
  report.diagnosis = DiagnoseProfileSummary(*summary, analysis, options.diagnose);
  report.summary_metrics = std::move(analysis.metrics);
  slot.reports.push_back(std::move(report));
}

void ReadMemoryTimeline(Slot& slot, const DiagnoseOptions& options) {
  StatusOr<MemoryTimeline> timeline = ImportMemoryTimeline(slot.input->path);
  if (!timeline.ok()) {
    slot.error = timeline.status().message();
    return;
  }
  NoteDataLoss(slot, timeline->problems);
  slot.reports.push_back(ReportMemoryTimeline(*timeline, options));
}

void ReadMemorySnapshot(Slot& slot, const DiagnoseOptions& options) {
  if (slot.input->input.kind == InputKind::kMemoryTimeline) {
    ReadMemoryTimeline(slot, options);
    return;
  }
  StatusOr<MemorySnapshot> snapshot = slot.input->input.kind == InputKind::kMemorySummary
                                          ? ImportMemorySummary(slot.input->path)
                                          : ImportMemorySnapshot(slot.input->path);
  if (!snapshot.ok()) {
    slot.error = snapshot.status().message();
    return;
  }
  NoteDataLoss(slot, snapshot->problems);
  slot.reports.push_back(ReportMemorySnapshot(*snapshot, options));
}

// Nsight Compute exports are read before the traces, whose top kernels are joined to them.
std::vector<KernelProfile> ReadKernelProfiles(std::vector<std::unique_ptr<Slot>>& slots) {
  std::vector<KernelProfile> profiles;
  for (auto& slot : slots) {
    if (slot->input->role != InputRole::kKernelProfile) continue;
    Status status = GuardedRead(slot->input->path, [&] {
      StatusOr<KernelProfile> profile = ImportNcuCsv(slot->input->path);
      if (!profile.ok()) return profile.status();
      NoteDataLoss(*slot, profile->problems);
      profiles.push_back(std::move(*profile));
      return Status::Ok();
    });
    if (!status.ok()) slot->error = status.message();
  }
  return profiles;
}

// With traces in the same run, metric logs are read first so that DCGM profiling series can
// join a trace's sampled GPU activity by wall clock (analyze/gpu_metrics_join.h); each log's
// own report is then built from the same read.
std::vector<MetricSeriesSet> ReadMetricLogsBesideTraces(std::vector<std::unique_ptr<Slot>>& slots) {
  std::vector<MetricSeriesSet> logs;
  const bool traces = std::any_of(slots.begin(), slots.end(), [](const auto& slot) {
    return slot->input->role == InputRole::kTrace;
  });
  if (!traces) return logs;
  std::vector<Slot*> read;
  for (auto& slot : slots) {
    if (slot->input->role != InputRole::kMetricLog || !slot->error.empty()) continue;
    Status status = GuardedRead(slot->input->path, [&] {
      StatusOr<MetricSeriesSet> set = ImportMetricLog(slot->input->path);
      if (!set.ok()) return set.status();
      NoteDataLoss(*slot, set->problems);
      logs.push_back(std::move(*set));
      read.push_back(slot.get());
      return Status::Ok();
    });
    if (!status.ok()) slot->error = status.message();
  }
  for (size_t i = 0; i < read.size(); ++i) read[i]->preread = &logs[i];  // logs no longer grows
  return logs;
}

// Runs on a pool thread, where an escaping exception would end the process: whatever one
// input throws (its importer, or an analysis of what it held) fails that input alone.
void RunSlot(Slot& slot, const PipelineOptions& options, bool keep_reports) {
  Status status = GuardedRead(slot.input->path, [&] {
    switch (slot.input->role) {
      case InputRole::kTrace: AnalyzeTraces(slot, options, keep_reports); break;
      case InputRole::kRankSummary: ReadSummary(slot); break;
      case InputRole::kMetricLog: ReadMetricLog(slot, options.diagnose); break;
      case InputRole::kProfileSummary: ReadProfileSummarySlot(slot, options); break;
      case InputRole::kMemorySnapshot: ReadMemorySnapshot(slot, options.diagnose); break;
      default: break;
    }
    return Status::Ok();
  });
  if (status.ok()) return;
  slot.reports.clear();
  slot.summaries.clear();
  slot.data_loss.clear();
  slot.error = status.message();
}

bool RunsInPool(InputRole role) {
  return role == InputRole::kTrace || role == InputRole::kRankSummary ||
         role == InputRole::kMetricLog || role == InputRole::kProfileSummary ||
         role == InputRole::kMemorySnapshot;
}

// Traces (and the inputs that were refused in their place) count towards the memory bound.
bool CountsAsTrace(const PlannedInput& input) {
  return input.role == InputRole::kTrace ||
         (input.role == InputRole::kFailed && input.input.kind != InputKind::kDirectory &&
          input.input.kind != InputKind::kMissing);
}

// `summary_files`: rank summaries read from files (gpuwhy analyze --summary). They have no
// per-rank report of their own, so the job view is their only output: a CPU-only DDP job over
// gloo records neither a world size nor a GPU collective, and its merge printed nothing.
std::optional<CrossRankReport> BuildCrossRankReport(const Report& report,
                                                    const PipelineOptions& options,
                                                    const std::optional<RankSummary>& baseline,
                                                    size_t summary_files) {
  // Traces of one job: at least two that ran collectives or say they are one rank of many.
  size_t distributed = 0;
  for (const RankSummary& s : report.summaries)
    distributed += s.world_size > 1 || !s.collectives.empty();
  if (distributed < 2 && !baseline && summary_files == 0) return std::nullopt;
  CrossRankReport job;
  job.result = AnalyzeCrossRank(report.summaries, options.cross_rank_options,
                                baseline ? &*baseline : nullptr);
  job.diagnosis = DiagnoseCrossRank(job.result, options.diagnose);
  return job;
}

void AddCrossRank(Report& report, const PipelineOptions& options, size_t summary_files) {
  std::optional<RankSummary> baseline;
  if (!options.baseline_single.empty()) {
    PipelineOptions single = options;
    single.max_reports = 0;
    single.cross_rank = false;
    single.baseline_single.clear();
    single.on_trace = nullptr;
    Report base = RunPipeline({options.baseline_single}, single);
    report.failures.insert(report.failures.end(), base.failures.begin(), base.failures.end());
    if (base.summaries.size() == 1) baseline = std::move(base.summaries.front());
  }
  report.job = BuildCrossRankReport(report, options, baseline, summary_files);
  if (report.job && report.reports_left_out) {
    report.job->diagnosis.notes.push_back(
        fmt::format("{} traces: per-rank tables are left out to bound memory (they are kept for up "
                    "to {} traces "
                    "or 1 GiB of input); analyse one rank's file for its full report",
                    report.trace_count, options.max_reports));
  }
}

// A rank of a distributed job says what its report cannot show, unless the job view above
// compares every rank.
void NoteMissingRanks(Report& report) {
  const int64_t compared = report.job ? report.job->result.rank_count : 0;
  for (RankReport& rank : report.ranks) {
    const int64_t world = rank.header.world_size;
    if (!HasTraceAnalysis(rank) || world <= 1 || compared >= world) continue;
    rank.diagnosis.notes.push_back(
        compared == 0 ? fmt::format("one rank of {}: stragglers and cross-rank waits need every "
                                    "rank's trace (gpuwhy analyze DIR with all of them)",
                                    world)
                      : fmt::format("{} of {} ranks given: the job view compares these only; "
                                    "stragglers among the others are not seen",
                                    compared, world));
  }
}

// Nsight Compute exports with no trace to join them to: one report each with the diagnosis the
// export decides alone (issue 36) and how to join it to a trace.
void ReportUnjoinedProfiles(Report& report, const DiagnoseOptions& options) {
  if (std::any_of(report.ranks.begin(), report.ranks.end(), HasTraceAnalysis)) return;
  for (const KernelProfile& p : report.kernel_profiles) {
    RankReport rank;
    rank.header.path = p.path;
    rank.diagnosis = DiagnoseProfileAlone(AnalyzeProfileAlone(p), options);
    rank.diagnosis.notes.insert(
        rank.diagnosis.notes.begin(),
        fmt::format(
            "Nsight Compute export: {} profiled kernel(s), {} metric values, and no trace to join "
            "them to: give the trace beside it (gpuwhy analyze TRACE {}) for its top kernels' "
            "measured roofline classes; gpuwhy info {} lists each kernel's class and rule",
            p.kernels.size(), p.metric_count, p.path, p.path));
    report.ranks.push_back(std::move(rank));
  }
}

// "max_split_size: unlimited" / "max_split_size: 512.0 MiB" (the last print that has it; not
// shown when none printed it) and "device unknown (assumed 0)" when memory_stats() dicts named no
// device and the log did not either.
std::string StatsSettingsText(const std::vector<AllocatorStats>& stats) {
  std::vector<std::string> parts;
  std::optional<int64_t> max_split;
  size_t assumed = 0;
  for (const AllocatorStats& st : stats) {
    if (st.max_split_size) max_split = st.max_split_size;
    assumed += st.device_assumed;
  }
  if (max_split) {
    parts.push_back(*max_split < 0 ? std::string("max_split_size: unlimited")
                                   : fmt::format("max_split_size: {:.1f} MiB",
                                                 static_cast<double>(*max_split) / 1048576.0));
  }
  if (assumed > 0) {
    parts.push_back(fmt::format(
        "device unknown (assumed 0) for {} of {} print(s): memory_stats() names none and the log "
        "did not (a line with cuda:N or memory_stats(device=N) just before the print would)",
        assumed, stats.size()));
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

}  // namespace

RankReport ReportSeries(const MetricSeriesSet& set, const DiagnoseOptions& options) {
  RankReport report;
  report.header = SummarizeSeriesHeader(set);
  report.diagnosis = DiagnoseSignals(set, options);
  return report;
}

RankReport ReportMemorySnapshot(const MemorySnapshot& snapshot, const DiagnoseOptions& options) {
  RankReport report;
  report.header.path = snapshot.path;
  for (int32_t device : snapshot.Devices())
    report.header.devices.push_back({device, "", kNoValue, true});
  const AllocatorState state = AnalyzeAllocatorState(snapshot);
  report.diagnosis = DiagnoseAllocatorState(state, options);
  std::string sites;
  for (size_t i = 0; i < state.top_sites.size() && i < 3; ++i) {
    const AllocationSite& site = state.top_sites[i];
    sites += fmt::format("{}{} ({:.1f} MiB live in {} blocks)", i ? "; " : "", site.frame,
                         site.live_bytes / 1048576.0, site.live_blocks);
  }
  if (snapshot.source != "torch.cuda.memory._dump_snapshot") {
    if (!snapshot.stats.empty()) {
      report.diagnosis.notes.push_back(fmt::format(
          "{} print(s) of {}: {:.2f} GiB reserved, {:.2f} GiB allocated now, peak {:.2f} GiB "
          "allocated; {} CUDA OOMs, {} cudaMalloc retries",
          snapshot.stats.size(), snapshot.source, state.reserved / 1073741824.0,
          state.allocated / 1073741824.0, std::max<int64_t>(state.peak_allocated, 0) / 1073741824.0,
          state.ooms, state.alloc_retries));
      const std::string settings = StatsSettingsText(snapshot.stats);
      if (!settings.empty()) report.diagnosis.notes.push_back(settings);
    }
    if (!snapshot.oom_messages.empty()) {
      std::string lines;
      for (size_t i = 0; i < snapshot.oom_messages.size() && i < 5; ++i) {
        lines += fmt::format("{}{}", i ? ", " : "", snapshot.oom_messages[i].line);
      }
      if (snapshot.oom_messages.size() > 5) lines += ", ...";
      report.diagnosis.notes.push_back(fmt::format("{} CUDA out-of-memory message(s), line {}",
                                                   snapshot.oom_messages.size(), lines));
    }
    return report;
  }
  report.memory_series = ComputeSnapshotMemorySeries(snapshot);
  report.diagnosis.notes.push_back(fmt::format(
      "allocator snapshot: {:.2f} GiB reserved, {:.2f} GiB allocated in {} segments; {} trace "
      "entries (gpuwhy info shows every count)",
      state.reserved / 1073741824.0, state.allocated / 1073741824.0, state.segments,
      snapshot.trace.size()));
  if (!sites.empty()) report.diagnosis.notes.push_back("top allocation sites: " + sites);
  if (const std::optional<int64_t> split = snapshot.settings.max_split_size) {
    report.diagnosis.notes.push_back(
        *split < 0 ? std::string("allocator settings: max_split_size: unlimited")
                   : fmt::format("allocator settings: max_split_size: {:.1f} MiB",
                                 static_cast<double>(*split) / 1048576.0));
  }
  return report;
}

// A summary file beside the trace it summarises (the folder gpuwhy.profile writes) is that
// trace's rank, not another one (ranks/summary_identity.h): its summary is dropped and the
// trace's report says so.
void DropSummariesOfTracesPresent(std::vector<std::unique_ptr<Slot>>& slots) {
  for (auto& summary : slots) {
    if (summary->input->role != InputRole::kRankSummary || summary->summaries.size() != 1) continue;
    for (auto& trace : slots) {
      if (trace->input->role != InputRole::kTrace || trace->summaries.size() != 1) continue;
      if (!SummaryDescribesTrace(summary->summaries.front(), summary->input->path,
                                 trace->summaries.front(), trace->input->path)) {
        continue;
      }
      summary->summaries.clear();
      if (!trace->reports.empty()) {
        trace->reports.front().diagnosis.notes.push_back(
            summary->input->path +
            ": this trace's own summary (same folder, names this trace): not another rank");
      }
      break;
    }
  }
}

Report RunPipeline(const std::vector<std::string>& inputs, const PipelineOptions& options) {
  Report report;
  const std::vector<PlannedInput> plan = PlanInputs(inputs, options.accept);
  std::vector<std::unique_ptr<Slot>> slots;
  uintmax_t trace_bytes = 0;
  for (const PlannedInput& input : plan) {
    auto slot = std::make_unique<Slot>();
    slot->input = &input;
    if (input.role == InputRole::kFailed) slot->error = input.error;
    if (CountsAsTrace(input)) {
      report.trace_count++;
      std::error_code ignored;
      uintmax_t size = std::filesystem::file_size(input.path, ignored);
      if (!ignored) trace_bytes += size;
    }
    slots.push_back(std::move(slot));
  }
  const bool keep_reports =
      report.trace_count <= options.max_reports || trace_bytes <= options.max_report_input_bytes;
  report.kernel_profiles = ReadKernelProfiles(slots);
  const std::vector<MetricSeriesSet> metric_logs = ReadMetricLogsBesideTraces(slots);
  PipelineOptions with_profiles = options;
  with_profiles.analysis.kernel_profiles = report.kernel_profiles;
  with_profiles.analysis.metric_logs = metric_logs;
  report.reports_left_out = !keep_reports && options.max_reports > 0;
  std::vector<Slot*> pooled;
  for (auto& slot : slots)
    if (RunsInPool(slot->input->role)) pooled.push_back(slot.get());
  // A lone input runs on this thread. On a pool thread its import and analyses filled that
  // thread's malloc arena, which keeps what they free (KeepFreedMemoryForReuse) and which the
  // rendering on this thread cannot reuse: the report's allocations came on top of the freed
  // analysis memory (1 GB trace: peak RSS 577 MB, 557 MB inline, as both share one arena).
  if (pooled.size() == 1) {
    RunSlot(*pooled.front(), with_profiles, keep_reports);
  } else {
    ThreadPool pool(options.jobs > 0 ? options.jobs : DefaultThreadCount());
    for (Slot* s : pooled)
      pool.Submit([s, &with_profiles, keep_reports] { RunSlot(*s, with_profiles, keep_reports); });
    pool.Wait();
  }
  DropSummariesOfTracesPresent(slots);
  // Traces and summaries first, then metric logs and memory snapshots, each in input order.
  std::vector<RankReport> metric_reports;
  std::vector<ReportFailure> metric_failures;
  size_t summary_files = 0;
  for (auto& slot : slots) {
    // Metric logs, profiler summaries and memory snapshots are reported after the traces.
    const bool metric = slot->input->role == InputRole::kMetricLog ||
                        slot->input->role == InputRole::kProfileSummary ||
                        slot->input->role == InputRole::kMemorySnapshot;
    if (slot->input->role == InputRole::kBundle || slot->input->role == InputRole::kNodeLog ||
        slot->input->role == InputRole::kSkipped) {
      continue;
    }
    if (!slot->error.empty()) {
      (metric ? metric_failures : report.failures).push_back({slot->input->path, slot->error});
      continue;
    }
    for (std::string& lost : slot->data_loss)
      report.data_loss.push_back({slot->input->path, std::move(lost)});
    for (RankReport& rank : slot->reports)
      (metric ? metric_reports : report.ranks).push_back(std::move(rank));
    summary_files += slot->input->role == InputRole::kRankSummary && !slot->summaries.empty();
    for (RankSummary& summary : slot->summaries) report.summaries.push_back(std::move(summary));
  }
  for (RankReport& rank : metric_reports) report.ranks.push_back(std::move(rank));
  for (ReportFailure& failure : metric_failures) report.failures.push_back(std::move(failure));
  if (options.cross_rank) AddCrossRank(report, options, summary_files);
  NoteMissingRanks(report);
  ReportUnjoinedProfiles(report, options.diagnose);
  AddNodeLogs(plan, options, report);
  return report;
}

}  // namespace gpuwhy
