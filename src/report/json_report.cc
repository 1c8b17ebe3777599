// JSON report: each rank's diagnosis, every metric plus the main structured tables. Keys are
// written in a fixed order and lists keep the analyses' (deterministic) order.
#include <fmt/format.h>

#include "base/json_writer.h"
#include "report/cross_rank_report.h"
#include "report/diagnosis_sections.h"
#include "report/report.h"
#include "report/report_rows.h"

namespace gpuwhy {
namespace {

using report::WriteMetricScope;
using report::WriteOptionalInt;

using report::ReportRows;

void WriteMetrics(JsonWriter& w, const MetricSet& metrics, const ReportRows& rows) {
  w.Key("metrics");
  w.BeginArray();
  for (const Metric& m : metrics.all()) {
    if (!rows.KeepsMetric(m)) continue;
    w.BeginObject();
    w.Field("id", m.id);
    WriteMetricScope(w, m.scope);
    w.Field("value", m.value);
    w.Field("unit", m.unit);
    w.EndObject();
  }
  w.EndArray();
}

void WriteTopKernels(JsonWriter& w, const KernelStatsResult& r, size_t top_n) {
  w.Key("top_kernels");
  w.BeginArray();
  for (size_t i = 0; i < r.top.size() && i < top_n; ++i) {
    const KernelNameStats& k = r.top[i];
    w.BeginObject();
    w.Field("name", k.display_name);
    w.Field("class", KernelClassName(k.kernel_class));
    w.Field("hta_type", HtaKernelTypeName(k.hta_type));
    w.Field("tensor_cores", k.tensor_cores);
    w.Field("count", k.count);
    w.Field("total_ms", NsToMs(k.total_ns));
    w.Field("time_pct", k.time_pct);
    w.Field("mean_us", k.duration_us.mean);
    w.Field("median_us", k.duration_us.median);
    w.Field("p95_us", k.duration_us.p95);
    w.Field("min_us", k.duration_us.min);
    w.Field("max_us", k.duration_us.max);
    w.EndObject();
  }
  w.EndArray();
}

void WriteRange(JsonWriter& w, Interval range) {
  w.Field("start_ns", range.start);
  w.Field("end_ns", range.end);
  w.Field("duration_ms", NsToMs(range.length()));
}

void WriteIdleGaps(JsonWriter& w, const IdleGapsResult& r, size_t top_n) {
  w.Key("idle_gaps");
  w.BeginObject();
  w.Field("window_ms", NsToMs(r.rank.window_ns));
  w.Field("idle_ms", NsToMs(r.rank.idle_ns));
  w.Field("gap_count", r.rank.gap_count);
  w.Field("step_count", r.step_count);
  w.Key("causes");
  w.BeginArray();
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    w.BeginObject();
    w.Field("cause", IdleCauseName(static_cast<IdleCause>(c)));
    w.Field("idle_ms", NsToMs(r.rank.ns[c]));
    w.Field("pieces", r.rank.pieces[c]);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top_gaps");
  w.BeginArray();
  for (size_t i = 0; i < r.top_gaps.size() && i < top_n; ++i) {
    const IdleGap& gap = r.top_gaps[i];
    w.BeginObject();
    w.Field("device", gap.device);
    WriteRange(w, gap.range);
    w.Field("cause", IdleCauseName(gap.dominant));
    w.Key("pieces");
    w.BeginArray();
    for (const IdlePiece& piece : gap.pieces) {
      w.BeginObject();
      w.Field("cause", IdleCauseName(piece.cause));
      WriteRange(w, piece.range);
      w.Field("host_op", piece.host_name);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("host_busy_top");
  w.BeginArray();
  for (const HostNameTime& name : r.host_busy_top) {
    w.BeginObject();
    w.Field("name", name.name);
    w.Field("ms", NsToMs(name.ns));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteSteps(JsonWriter& w, const StepBreakdownResult& r, const ReportRows& rows) {
  w.Key("steps");
  w.BeginArray();
  for (size_t i = 0; i < r.steps.size(); ++i) {
    if (!rows.steps.Keeps(i)) continue;
    const StepCosts& step = r.steps[i];
    w.BeginObject();
    w.Field("step", step.number);
    w.Field("start_ns", step.window.start);
    w.Field("end_ns", step.window.end);
    w.Field("time_ms", NsToMs(step.total_ns));
    w.Key("breakdown_ms");
    w.BeginObject();
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
      w.Field(StepCategoryName(static_cast<StepCategory>(c)), NsToMs(step.ns[c]));
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps_excluded");
  w.BeginArray();
  for (size_t i = 0; i < r.extents.excluded.size() && i < report::kMaxStepRows; ++i)
    w.Int(r.extents.excluded[i]);
  w.EndArray();
  w.Field("steps_synthesized", r.extents.synthesized);
}

// Said only when rows were left out, so a report under the caps reads as before.
void WriteRowsLeftOut(JsonWriter& w, const ReportRows& rows) {
  if (!rows.Capped()) return;
  w.Key("rows_left_out");
  w.BeginObject();
  w.Field("steps", static_cast<int64_t>(rows.steps.left_out));
  w.Field("steps_excluded", static_cast<int64_t>(rows.steps.excluded_left_out));
  w.Field("devices", static_cast<int64_t>(rows.devices.left_out));
  w.Field("why", rows.Why());
  w.EndObject();
}

void WriteQuality(JsonWriter& w, const DataQualityResult& r) {
  w.Key("data_quality");
  w.BeginArray();
  for (const DataQualityIssue& issue : r.issues) {
    w.BeginObject();
    w.Field("id", issue.id);
    w.Field("severity", QualitySeverityName(issue.severity));
    w.Field("count", issue.count);
    w.Field("message", issue.message);
    w.EndObject();
  }
  w.EndArray();
}

void WriteHeader(JsonWriter& w, const RankHeader& h, const ReportRows& rows) {
  w.Field("path", h.path);
  WriteOptionalInt(w, "rank", h.rank);
  WriteOptionalInt(w, "world_size", h.world_size);
  w.Field("vendor", h.vendor);
  w.Key("devices");
  w.BeginArray();
  for (const ReportDevice& d : h.devices) {
    if (!rows.devices.Keeps(d.id)) continue;
    w.BeginObject();
    w.Field("id", d.id);
    w.Field("name", d.name);
    WriteOptionalInt(w, "memory_bytes", d.memory_bytes);
    w.Field("active", d.active);
    w.EndObject();
  }
  w.EndArray();
  w.Key("span");
  w.BeginObject();
  w.Field("start_ns", h.span.start);
  w.Field("end_ns", h.span.end);
  w.EndObject();
}

void WriteImportStats(JsonWriter& w, const RankHeader& h) {
  w.Key("import_stats");
  w.BeginArray();
  for (DataProblem kind : h.problems.Kinds()) {
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    w.BeginObject();
    w.Field("id", info.id);
    w.Field("severity", SeverityName(info.severity));
    w.Field("value", h.problems.Get(kind));
    w.Field("detail", h.problems.Detail(kind));
    w.EndObject();
  }
  w.EndArray();
}

// The top kernels joined to the Nsight Compute exports given with the trace, each with its
// measured roofline class and the rule that decided it (absent without an export).
void WriteProfiledKernels(JsonWriter& w, const ProfiledKernelsResult& r) {
  if (r.profiles == 0) return;
  w.Key("profiled_kernels");
  w.BeginObject();
  w.Field("exports", static_cast<int64_t>(r.profiles));
  w.Field("kernels_in_exports", static_cast<int64_t>(r.profiled_kernels));
  w.Field("classified_time_pct", r.classified_time_pct);
  w.Key("top");
  w.BeginArray();
  for (const ProfiledTopKernel& k : r.top) {
    const KernelRoofline& roof = k.roofline;
    w.BeginObject();
    w.Field("name", k.trace_name);
    w.Field("total_ns", k.total_ns);
    w.Field("time_pct", k.time_pct);
    w.Field("export", k.profile_path);
    w.Field("ncu_id", k.profile_id);
    w.Field("match", ProfileMatchName(k.match));
    report::WriteRooflineJson(w, roof);
    w.FieldOrNull("tensor_pipe_pct", roof.tensor_pipe_pct);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// Grid fill estimated from Kineto's launch arguments (absent when no kernel carries them).
void WriteSmEfficiency(JsonWriter& w, const SmEfficiencyResult& r, const ReportRows& rows) {
  if (!r.valid) return;
  w.Key("sm_efficiency");
  w.BeginObject();
  w.Field("source", "kineto launch arguments (estimates, TensorBoard plugin definitions)");
  w.Field("window_start_ns", r.window.start);
  w.Field("window_end_ns", r.window.end);
  w.FieldOrNull("est_sm_efficiency_pct", r.est_sm_efficiency_pct);
  w.FieldOrNull("est_occupancy_pct", r.est_occupancy_pct);
  w.Field("small_grid_time_pct", r.small_grid_time_pct);
  w.Field("small_grid_mean_blocks_per_sm", r.small_grid_mean_fill);
  w.Field("blocks_per_sm_coverage_pct", r.blocks_coverage_pct);
  w.Key("per_device");
  w.BeginArray();
  for (const DeviceSmEfficiency& d : r.per_device) {
    if (!rows.devices.Keeps(d.device)) continue;
    w.BeginObject();
    w.Field("device", static_cast<int64_t>(d.device));
    w.FieldOrNull("est_sm_efficiency_pct", d.est_sm_efficiency_pct);
    w.FieldOrNull("est_occupancy_pct", d.est_occupancy_pct);
    w.Field("kernel_ns", d.totals.kernel_ns);
    w.Field("small_grid_ns", d.totals.small_grid_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top_small_grids");
  w.BeginArray();
  for (const SmallGridKernel& k : r.top_small_grids) {
    w.BeginObject();
    w.Field("name", k.name);
    w.Field("count", k.count);
    w.Field("total_ns", k.total_ns);
    w.Field("mean_blocks_per_sm", k.mean_blocks_per_sm);
    w.FieldOrNull("est_occupancy_pct", k.est_occupancy_pct);
    w.Field("blocks", k.blocks);
    w.Field("threads_per_block", k.threads_per_block);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteGpuMetricMeans(JsonWriter& w, const GpuMetricMeans& m) {
  w.FieldOrNull("sm_active_pct", m.sm_active_pct);
  w.FieldOrNull("sm_issue_pct", m.sm_issue_pct);
  w.FieldOrNull("sm_occupancy_pct", m.sm_occupancy_pct);
  w.FieldOrNull("tensor_active_pct", m.tensor_active_pct);
  w.FieldOrNull("dram_bw_pct", m.dram_bw_pct);
  w.FieldOrNull("gr_active_pct", m.gr_active_pct);
  w.Field("coverage_pct", m.coverage_pct);
}

// Sampled GPU activity (absent without GPU_METRICS).
void WriteGpuMetrics(JsonWriter& w, const GpuMetricsResult& r, const ReportRows& rows) {
  if (!r.valid) return;
  w.Key("gpu_metrics");
  w.BeginObject();
  w.Field("source", r.source);
  w.Field("window_start_ns", r.window.start);
  w.Field("window_end_ns", r.window.end);
  w.Field("bin_ns", r.bin_ns);
  WriteGpuMetricMeans(w, r.rank);
  w.Key("per_device");
  w.BeginArray();
  for (const DeviceGpuMetrics& d : r.per_device) {
    if (!rows.devices.Keeps(d.device)) continue;
    w.BeginObject();
    w.Field("device", static_cast<int64_t>(d.device));
    WriteGpuMetricMeans(w, d.means);
    w.EndObject();
  }
  w.EndArray();
  w.Key("per_step");
  w.BeginArray();
  for (const StepGpuMetrics& s : r.per_step) {
    if (!rows.steps.KeepsNumber(s.step)) continue;
    w.BeginObject();
    w.Field("step", s.step);
    WriteGpuMetricMeans(w, s.means);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteRank(JsonWriter& w, const RankReport& rank, size_t top_n) {
  const TraceAnalysis& a = rank.analysis;
  const ReportRows rows = report::SelectReportRows(rank.header, a);
  w.BeginObject();
  WriteHeader(w, rank.header, rows);
  report::WriteDiagnosisJson(w, rank.diagnosis);
  // A profiler summary's rank has no trace analysis: its own summary.* metrics stand in.
  WriteMetrics(w, a.metrics.all().empty() ? rank.summary_metrics : a.metrics, rows);
  WriteTopKernels(w, a.kernels, top_n);
  WriteIdleGaps(w, a.idle_gaps, top_n);
  WriteSteps(w, a.steps, rows);
  WriteRowsLeftOut(w, rows);
  w.Field("hta_compat", a.hta_compat);
  WriteProfiledKernels(w, a.profiled_kernels);
  WriteSmEfficiency(w, a.sm_efficiency, rows);
  WriteGpuMetrics(w, a.gpu_metrics, rows);
  WriteQuality(w, a.data_quality);
  if (rank.replay.available) report::WriteReplayJson(w, rank.replay);
  WriteImportStats(w, rank.header);
  w.Key("not_applicable");
  w.BeginArray();
  for (const NotApplicable& line : CollectNotApplicable(a)) {
    w.BeginObject();
    w.Field("analysis", line.analysis);
    w.Field("reason", line.reason);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WriteFailures(JsonWriter& w, std::span<const ReportFailure> failures) {
  w.Key("errors");
  w.BeginArray();
  for (const ReportFailure& failure : failures) {
    w.BeginObject();
    w.Field("path", failure.path);
    w.Field("message", failure.message);
    w.EndObject();
  }
  w.EndArray();
}

std::string RenderReportJson(std::span<const RankReport> ranks,
                             std::span<const ReportFailure> failures, size_t top_n,
                             const CrossRankReport* job) {
  JsonWriter w;
  w.BeginObject();
  w.Field("schema_version", kReportSchemaVersion);
  w.Field("tool", "gpuwhy");
  w.Key("ranks");
  w.BeginArray();
  for (const RankReport& rank : ranks) WriteRank(w, rank, top_n);
  w.EndArray();
  WriteFailures(w, failures);
  if (job != nullptr) {
    w.Key("cross_rank");
    WriteCrossRankJson(w, *job, top_n);
  }
  w.EndObject();
  std::string out = w.str();
  out += '\n';
  return out;
}

}  // namespace gpuwhy
