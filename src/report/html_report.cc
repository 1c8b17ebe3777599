// `gpuwhy analyze --format html`: one self-contained page per run (inline CSS, SVG and a
// few lines of JS; a Content-Security-Policy forbids any network access). Per rank: the
// verdict, then the pictures that support it, each with the numbers behind it.
#include <algorithm>

#include <fmt/format.h>

#include "base/bytes.h"
#include "report/cross_rank_report.h"
#include "report/diagnosis_sections.h"
#include "report/efficiency_lines.h"
#include "report/html_sections.h"
#include "report/html_writer.h"
#include "report/report.h"
#include "report/text_format.h"

namespace gpuwhy {
namespace {

using namespace report;        // NOLINT: formatting helpers
using namespace report::html;  // NOLINT

constexpr size_t kMaxDrawnSteps = 200;  // bars; a note says how many were left out
constexpr size_t kKernelTableRows = 50;
constexpr size_t kMaxGapRows = 20;

// Tableau 10: distinct, colour-blind friendly.
constexpr const char* kStepColours[kStepCategoryCount] = {
    "#4e79a7", "#f28e2b", "#edc948", "#b07aa1", "#76b7b2", "#e15759", "#59a14f", "#bab0ac"};
constexpr const char* kIdleColours[kIdleCauseCount] = {"#e15759", "#b07aa1", "#ff9da7",
                                                       "#f28e2b", "#edc948", "#76b7b2",
                                                       "#9c755f", "#bab0ac", "#4e79a7"};
constexpr const char* kBusyColour = "#4e79a7";
constexpr const char* kKernelLineColour = "#1b1b1b";

int64_t RankNumber(const RankHeader& h) { return h.rank == kNoValue ? 0 : h.rank; }

std::vector<Series> StepSeries() {
  std::vector<Series> s;
  for (size_t c = 0; c < kStepCategoryCount; ++c) {
    s.push_back({std::string(StepCategoryName(static_cast<StepCategory>(c))), kStepColours[c]});
  }
  return s;
}

std::string IdleName(size_t c) {
  return "idle: " + std::string(IdleCauseName(static_cast<IdleCause>(c)));
}

// |trace|: false for an input without a trace (a memory snapshot or timeline, node logs), whose
// header names the input and its devices only.
void RenderHeaderSection(std::string& out, const RankHeader& h, bool trace) {
  std::string title = !trace               ? "Input"
                      : h.rank == kNoValue ? "Trace"
                                           : fmt::format("Rank {}", h.rank);
  out += fmt::format("<h1 class=\"rank-title\">{}: <code>{}</code></h1>", Escape(title),
                     Escape(h.path));
  std::string devices;
  for (const ReportDevice& d : h.devices) {
    if (!devices.empty()) devices += "; ";
    devices += fmt::format(
        "GPU {}{}{}{}", d.id, d.name.empty() ? "" : " " + d.name,
        d.memory_bytes == kNoValue ? "" : ", " + Bytes(static_cast<double>(d.memory_bytes)),
        d.active ? "" : " (no GPU op)");
  }
  if (!trace) {
    if (!devices.empty()) Element(out, "p", "devices: " + devices, "class=\"meta\"");
    return;
  }
  Element(
      out, "p",
      fmt::format("vendor {}; world size {}; trace span {}; devices: {}",
                  h.vendor.empty() ? "unknown" : h.vendor,
                  h.world_size == kNoValue ? std::string("unknown") : std::to_string(h.world_size),
                  MsNs(h.span.length()), devices.empty() ? "none" : devices),
      "class=\"meta\"");
}

void RenderStepsHtml(std::string& out, const StepBreakdownResult& steps) {
  OpenSection(out, "", "Step time breakdown",
              steps.steps.empty()
                  ? "no analysed step"
                  : fmt::format("{} steps; median {}, min {}, max {}; exclusive categories "
                                "(TensorBoard plugin order), so each bar is the step time",
                                steps.steps.size(), MsNs(steps.median_ns), MsNs(steps.min_ns),
                                MsNs(steps.max_ns)));
  if (!steps.steps.empty()) {
    StackedBarsChart chart;
    chart.title = "Time per step by category (ms)";
    chart.unit = "ms";
    chart.series = StepSeries();
    for (size_t i = 0; i < steps.steps.size() && i < kMaxDrawnSteps; ++i) {
      const StepCosts& s = steps.steps[i];
      chart.labels.push_back(fmt::format("#{}", s.number));
      std::vector<double> v;
      std::string tip = fmt::format("ProfilerStep#{}: {}", s.number, MsNs(s.total_ns));
      for (size_t c = 0; c < kStepCategoryCount; ++c) {
        v.push_back(NsToMs(s.ns[c]));
        if (s.ns[c] > 0)
          tip += fmt::format("\n{}: {}", StepCategoryName(static_cast<StepCategory>(c)),
                             MsNs(s.ns[c]));
      }
      chart.values.push_back(std::move(v));
      chart.tooltips.push_back(std::move(tip));
    }
    out += RenderStackedBars(chart);
    if (steps.steps.size() > kMaxDrawnSteps) {
      Element(out, "p",
              fmt::format("first {} of {} steps drawn", kMaxDrawnSteps, steps.steps.size()),
              "class=\"note\"");
    }
    std::vector<std::vector<Cell>> rows;
    std::vector<Cell> row{{"mean per step"}};
    for (size_t c = 0; c < kStepCategoryCount; ++c)
      row.push_back(Num(Ms(steps.mean_ns[c] / 1e6), steps.mean_ns[c]));
    row.push_back(Num(Ms(steps.mean_total_ns / 1e6), steps.mean_total_ns));
    rows.push_back(std::move(row));
    std::vector<std::string> headers{""};
    for (size_t c = 0; c < kStepCategoryCount; ++c)
      headers.emplace_back(StepCategoryName(static_cast<StepCategory>(c)));
    headers.emplace_back("step");
    Table(out, headers, rows);
  }
  for (const std::string& line : steps.not_applicable)
    Element(out, "p", "n/a: " + line, "class=\"note\"");
  CloseSection(out);
}

void RenderUtilizationHtml(std::string& out, const RankHeader& h, const TraceAnalysis& a) {
  const TimeSeriesResult& s = a.series;
  OpenSection(
      out, "", "GPU utilization over time",
      a.utilization.valid
          ? fmt::format("kernel utilization {} (TensorBoard convention: kernels only), GPU-op "
                        "utilization {} "
                        "(HTA / Nsight convention: kernels + memcpy + memset); {} buckets of {}",
                        Pct(a.utilization.rank.kernel_pct), Pct(a.utilization.rank.gpu_op_pct),
                        s.bucket_count, Duration(static_cast<double>(s.bucket_ns)))
          : "no GPU op");
  for (const DeviceBusySeries& d : s.devices) {
    TimeAreaChart chart;
    double kernel_pct = 0, gpu_op_pct = 0;
    for (const DeviceUtilization& u : a.utilization.per_device) {
      if (u.device == d.device) kernel_pct = u.share.kernel_pct, gpu_op_pct = u.share.gpu_op_pct;
    }
    chart.title =
        fmt::format("GPU {}: GPU-op busy {} (area), kernel busy {} (line), idle coloured by cause",
                    d.device, Pct(gpu_op_pct), Pct(kernel_pct));
    chart.x_start_ms = NsToMs(s.window.start - h.span.start);
    chart.x_end_ms = NsToMs(s.window.end - h.span.start);
    chart.areas.push_back({"GPU-op busy (kernels + memcpy + memset)", kBusyColour});
    chart.area_values.push_back(d.gpu_op_pct);
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      chart.areas.push_back({IdleName(c), kIdleColours[c]});
      chart.area_values.push_back(d.idle_pct[c]);
    }
    chart.lines.push_back({"kernel busy (kernels only)", kKernelLineColour});
    chart.line_values.push_back(d.kernel_pct);
    out += RenderTimeAreas(chart);
  }
  for (const std::string& line : s.not_applicable) {
    if (line.rfind("memory", 0) != 0) Element(out, "p", "n/a: " + line, "class=\"note\"");
  }
  CloseSection(out);
}

void RenderIdleHtml(std::string& out, const RankHeader& h, const IdleGapsResult& idle) {
  const IdleTotals& t = idle.rank;
  OpenSection(
      out, "", "Idle-gap causes",
      fmt::format(
          "{} idle of {} analysed device time ({}), {} gaps; each idle nanosecond gets one cause",
          MsNs(t.idle_ns), MsNs(t.window_ns),
          Pct(t.window_ns > 0
                  ? 100.0 * static_cast<double>(t.idle_ns) / static_cast<double>(t.window_ns)
                  : 0),
          Count(t.gap_count)));
  if (t.idle_ns > 0) {
    HBarChart chart;
    chart.title = "Idle time by cause (ms per step, share of idle time)";
    double steps = std::max<double>(1.0, static_cast<double>(idle.step_count));
    for (size_t c = 0; c < kIdleCauseCount; ++c) {
      chart.labels.emplace_back(IdleCauseName(static_cast<IdleCause>(c)));
      chart.values.push_back(NsToMs(t.ns[c]) / steps);
      chart.value_texts.push_back(
          fmt::format("{}/step ({} of idle)", Ms(NsToMs(t.ns[c]) / steps),
                      Pct(100.0 * static_cast<double>(t.ns[c]) / static_cast<double>(t.idle_ns))));
      chart.colours.emplace_back(kIdleColours[c]);
    }
    out += RenderHBars(chart);
  }
  std::vector<std::vector<Cell>> rows;
  for (size_t i = 0; i < idle.top_gaps.size() && i < kMaxGapRows; ++i) {
    const IdleGap& g = idle.top_gaps[i];
    std::string pieces;
    for (const IdlePiece& p : g.pieces) {
      if (!pieces.empty()) pieces += "; ";
      pieces += fmt::format("{} {}{}", IdleCauseName(p.cause), MsNs(p.range.length()),
                            p.host_name.empty() ? "" : " (" + p.host_name + ")");
    }
    rows.push_back({Num(std::to_string(g.device), g.device),
                    Num(Offset(g.range.start, h.span.start), static_cast<double>(g.range.start)),
                    Num(Offset(g.range.end, h.span.start), static_cast<double>(g.range.end)),
                    Num(MsNs(g.range.length()), static_cast<double>(g.range.length())),
                    {std::string(IdleCauseName(g.dominant))},
                    {pieces}});
  }
  if (!rows.empty()) {
    Element(out, "h3", "Longest gaps");
    Table(
        out,
        {"GPU", "start", "end", "duration", "main cause", "pieces (cause, length, host activity)"},
        rows, true);
  }
  for (const std::string& line : idle.not_applicable)
    Element(out, "p", "n/a: " + line, "class=\"note\"");
  CloseSection(out);
}

void RenderKernelsHtml(std::string& out, const TraceAnalysis& a) {
  const KernelStatsResult& k = a.kernels;
  double short_count_pct = a.metrics.ValueOr(metric::kKernelsShortCountPct.id, 0);
  double short_time_pct = a.metrics.ValueOr(metric::kKernelsShortTimePct.id, 0);
  OpenSection(
      out, "", "Kernels",
      fmt::format(
          "{} GPU ops, {} in total (durations summed); {} of them ({} of the time) under 10 µs",
          Count(k.kernel_count), MsNs(k.kernel_time_ns), Pct(short_count_pct),
          Pct(short_time_pct)));
  if (!k.histogram.empty() && k.kernel_count > 0) {
    ColumnChart chart;
    chart.title = fmt::format("Duration histogram (count, log scale); red: under 10 µs = {} of ops",
                              Pct(short_count_pct));
    chart.log_y = true;
    chart.y_unit = "kernels and copies";
    chart.x_title = "duration (each bar: from this value to the next)";
    for (const HistogramBucket& b : k.histogram) {
      std::string upper = b.upper_ns == INT64_MAX ? "∞" : Duration(static_cast<double>(b.upper_ns));
      chart.labels.push_back(Duration(static_cast<double>(b.lower_ns)));
      chart.values.push_back(static_cast<double>(b.count));
      chart.colours.emplace_back(b.upper_ns <= 10 * kNsPerUs ? "#e15759" : "#4e79a7");
      chart.tooltips.push_back(fmt::format("[{}, {}): {} ops, {}",
                                           Duration(static_cast<double>(b.lower_ns)), upper,
                                           Count(b.count), MsNs(b.total_ns)));
    }
    out += RenderColumns(chart);
  }
  std::vector<std::vector<Cell>> rows;
  for (size_t i = 0; i < k.all_names.size() && i < kKernelTableRows; ++i) {
    const KernelNameStats& n = k.all_names[i];
    Cell name{ShortenKernelName(n.display_name, 90)};
    name.title = n.display_name;
    rows.push_back({name,
                    {std::string(KernelClassName(n.kernel_class))},
                    Num(Count(n.count), static_cast<double>(n.count)),
                    Num(MsNs(n.total_ns), static_cast<double>(n.total_ns)),
                    Num(Pct(n.time_pct), n.time_pct),
                    Num(Us(n.duration_us.mean), n.duration_us.mean),
                    Num(Us(n.duration_us.median), n.duration_us.median),
                    Num(Us(n.duration_us.p95), n.duration_us.p95),
                    Num(Us(n.duration_us.max), n.duration_us.max)});
  }
  if (!rows.empty()) {
    Element(out, "h3", fmt::format("Top {} by total time (click a header to sort)", rows.size()));
    Table(out, {"name", "class", "count", "total", "% of op time", "mean", "median", "p95", "max"},
          rows, true);
  }
  for (const std::string& line : k.not_applicable)
    Element(out, "p", "n/a: " + line, "class=\"note\"");
  for (const std::string& line : {GridFillSentence(a.sm_efficiency), FlopsSentence(a.flops),
                                  GpuMetricsSentence(a.gpu_metrics)}) {
    if (!line.empty()) Element(out, "p", line);
  }
  for (const auto* lines : {&a.sm_efficiency.not_applicable, &a.flops.not_applicable}) {
    for (const std::string& line : *lines) Element(out, "p", "n/a: " + line, "class=\"note\"");
  }
  CloseSection(out);
}

void RenderCommunicationHtml(std::string& out, const CommunicationResult& c) {
  if (c.rank.kernel_count == 0) return;
  OpenSection(
      out, "", "Communication",
      fmt::format("{} collective kernels, {} of communication, {} overlapped with computation (HTA "
                  "comp_comm_overlap), {} exposed",
                  Count(c.rank.kernel_count), MsNs(c.rank.comm_time), Pct(c.rank.overlap_pct),
                  MsNs(c.rank.exposed)));
  std::vector<std::vector<Cell>> rows;
  for (const CommDeviceStats& d : c.devices) {
    rows.push_back({Num(std::to_string(d.device), d.device),
                    Num(Count(d.kernel_count), static_cast<double>(d.kernel_count)),
                    Num(MsNs(d.comm_time), static_cast<double>(d.comm_time)),
                    Num(MsNs(d.overlapped), static_cast<double>(d.overlapped)),
                    Num(MsNs(d.exposed), static_cast<double>(d.exposed)),
                    Num(Pct(d.overlap_pct), d.overlap_pct)});
  }
  Table(out, {"GPU", "kernels", "communication", "overlapped", "exposed", "overlap"}, rows);
  if (!c.by_collective.empty()) {
    HBarChart chart;
    chart.title =
        "Bus bandwidth per collective (nccl-tests busbw: bytes / time × algorithm factor)";
    rows.clear();
    for (const CollectiveSummary& s : c.by_collective) {
      chart.labels.push_back(s.name);
      chart.values.push_back(s.busbw_gbps);
      chart.value_texts.push_back(s.bytes > 0 ? GBps(s.busbw_gbps) : "size unknown");
      chart.colours.emplace_back("#b07aa1");
      rows.push_back({{s.name},
                      Num(Count(s.count), static_cast<double>(s.count)),
                      Num(Bytes(static_cast<double>(s.bytes)), static_cast<double>(s.bytes)),
                      Num(MsNs(s.time), static_cast<double>(s.time)),
                      Num(GBps(s.algbw_gbps), s.algbw_gbps),
                      Num(GBps(s.busbw_gbps), s.busbw_gbps)});
    }
    out += RenderHBars(chart);
    Table(out, {"collective", "count", "bytes", "time", "algbw", "busbw"}, rows, true);
  }
  CloseSection(out);
}

// |draw_series|: the old 240-bucket chart, when no memory timeline (html_memory.cc) replaces it.
void RenderMemoryHtml(std::string& out, const RankHeader& h, const TraceAnalysis& a,
                      bool draw_series) {
  const MemoryUsageResult& m = a.memory;
  if (m.devices.empty() && a.series.memory.empty()) return;
  OpenSection(out, "", "Memory",
              "the caching allocator's totals from [memory] events (profile_memory=True)");
  std::vector<std::vector<Cell>> rows;
  for (const DeviceMemoryStats& d : m.devices) {
    rows.push_back(
        {Num(std::to_string(d.device), d.device),
         Num(Bytes(static_cast<double>(d.peak_allocated)), static_cast<double>(d.peak_allocated)),
         Num(Bytes(static_cast<double>(d.peak_reserved)), static_cast<double>(d.peak_reserved)),
         Num(d.capacity == kNoValue ? "unknown" : Bytes(static_cast<double>(d.capacity)),
             static_cast<double>(d.capacity)),
         Num(d.capacity == kNoValue ? "–" : Pct(d.peak_reserved_pct), d.peak_reserved_pct),
         Num(fmt::format("{:.2f}", d.reserved_to_allocated), d.reserved_to_allocated)});
  }
  if (!rows.empty()) {
    Table(out,
          {"GPU", "peak allocated", "peak reserved", "capacity", "reserved of capacity",
           "reserved / allocated"},
          rows);
  }
  for (const DeviceMemorySeries& s : a.series.memory) {
    if (!draw_series) break;
    double max = 0;
    for (int64_t v : s.reserved_bytes) max = std::max(max, static_cast<double>(v));
    for (int64_t v : s.allocated_bytes) max = std::max(max, static_cast<double>(v));
    if (max <= 0) continue;
    TimeAreaChart chart;
    chart.title =
        fmt::format("GPU {}: allocated (area) and reserved (line) over time, GiB", s.device);
    chart.x_start_ms = NsToMs(a.series.window.start - h.span.start);
    chart.x_end_ms = NsToMs(a.series.window.end - h.span.start);
    chart.y_max = max / kGiB;
    chart.y_unit = "GiB";
    auto gib = [&](const std::vector<int64_t>& v) {
      std::vector<double> out_v;
      for (int64_t b : v) out_v.push_back(b == kNoValue ? 0.0 : static_cast<double>(b) / kGiB);
      return out_v;
    };
    chart.areas.push_back({"allocated", "#59a14f"});
    chart.area_values.push_back(gib(s.allocated_bytes));
    chart.lines.push_back({"reserved", "#e15759"});
    chart.line_values.push_back(gib(s.reserved_bytes));
    out += RenderTimeAreas(chart);
  }
  CloseSection(out);
}

void RenderImportHtml(std::string& out, const RankHeader& h, const TraceAnalysis& a) {
  OpenSection(out, "", "Import stats and data quality",
              h.problems.empty() ? "every record was read"
                                 : fmt::format("{} import stats", h.problems.Kinds().size()));
  std::vector<std::vector<Cell>> rows;
  for (DataProblem kind : h.problems.Kinds()) {
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    int64_t count = h.problems.Get(kind);
    rows.push_back({{std::string(info.id)},
                    {std::string(SeverityName(info.severity))},
                    Num(Count(count), static_cast<double>(count)),
                    {std::string(h.problems.Detail(kind))}});
  }
  for (const DataQualityIssue& issue : a.data_quality.issues) {
    rows.push_back({{issue.id},
                    {std::string(QualitySeverityName(issue.severity))},
                    Num(Count(issue.count), static_cast<double>(issue.count)),
                    {issue.message}});
  }
  if (!rows.empty()) Table(out, {"id", "severity", "count", "detail"}, rows);
  std::vector<NotApplicable> na = CollectNotApplicable(a);
  if (!na.empty()) {
    out += "<ul class=\"na\">";
    for (const NotApplicable& line : na)
      out += "<li>" + Escape(line.analysis + ": " + line.reason) + "</li>";
    out += "</ul>";
  }
  CloseSection(out);
}

// Several ranks: the mean step breakdown of each rank side by side.
void RenderRanksHtml(std::string& out, std::span<const RankReport> ranks) {
  OpenSection(out, "ranks", "Step time per rank",
              "mean step time per rank by category; a rank much slower or faster than the others "
              "is a straggler or "
              "waits on one");
  StackedBarsChart chart;
  chart.title = "Mean step time per rank by category (ms)";
  chart.unit = "ms";
  chart.series = StepSeries();
  std::vector<std::vector<Cell>> rows;
  for (const RankReport& r : ranks) {
    const StepBreakdownResult& s = r.analysis.steps;
    std::string label =
        r.header.rank == kNoValue ? r.header.path : fmt::format("rank {}", r.header.rank);
    chart.labels.push_back(label);
    std::vector<double> v;
    for (size_t c = 0; c < kStepCategoryCount; ++c) v.push_back(s.mean_ns[c] / 1e6);
    chart.values.push_back(std::move(v));
    chart.tooltips.push_back(fmt::format("{}: mean step {}", label, Ms(s.mean_total_ns / 1e6)));
    rows.push_back(
        {{label},
         Num(Count(static_cast<int64_t>(s.steps.size())), static_cast<double>(s.steps.size())),
         Num(Ms(s.mean_total_ns / 1e6), s.mean_total_ns),
         Num(MsNs(s.median_ns), static_cast<double>(s.median_ns)),
         Num(MsNs(s.min_ns), static_cast<double>(s.min_ns)),
         Num(MsNs(s.max_ns), static_cast<double>(s.max_ns)),
         Num(Pct(r.analysis.utilization.rank.gpu_op_pct), r.analysis.utilization.rank.gpu_op_pct)});
  }
  out += RenderStackedBars(chart);
  Table(out, {"rank", "steps", "mean step", "median", "min", "max", "GPU-op utilization"}, rows,
        true);
  CloseSection(out);
}

constexpr size_t kMaxHeatColumns = 200;

// Per matched collective (first 200, by first arrival) and rank: arrival after the first
// rank's, from the cross-rank analysis' aligned clocks.
void RenderLateArrivalHtml(std::string& out, const CrossRankReport& job) {
  const CrossRankResult& r = job.result;
  OpenSection(
      out, "late-arrival", "Late arrival per collective",
      fmt::format("{} collectives matched across {} ranks; each cell: how long after the first "
                  "rank this rank "
                  "started the collective (clocks aligned, uncertainty up to {}); darker = later",
                  Count(static_cast<int64_t>(r.collectives.size())), r.rank_count,
                  Duration(static_cast<double>(r.max_uncertainty_ns))));
  if (r.collectives.empty()) {
    Element(out, "p", "no collective matched across ranks", "class=\"note\"");
    CloseSection(out);
    return;
  }
  HeatMapChart chart;
  chart.title = "Arrival after the first rank, per collective (µs)";
  chart.unit = "µs";
  chart.column_title = "matched collective, in order of first arrival (from #0)";
  size_t columns = std::min(r.collectives.size(), kMaxHeatColumns);
  for (const CrossRankRow& row : r.ranks) {
    chart.row_labels.push_back(fmt::format("rank {}", row.rank));
    std::vector<double> values(columns, NAN);
    std::vector<std::string> tips(columns);
    for (size_t c = 0; c < columns; ++c) {
      const MatchedCollective& m = r.collectives[c];
      for (const CollectiveArrival& a : m.arrivals) {
        if (a.rank != row.rank) continue;
        values[c] = static_cast<double>(a.arrival - m.first_arrival) / 1e3;
        tips[c] =
            fmt::format("rank {}, step {}, {} #{}: +{} after the first{}", row.rank, m.step, m.kind,
                        m.ordinal, Duration(static_cast<double>(a.arrival - m.first_arrival)),
                        m.late_rank == row.rank ? " (last to arrive)" : "");
      }
    }
    chart.values.push_back(std::move(values));
    chart.tooltips.push_back(std::move(tips));
  }
  size_t label_every = std::max<size_t>(1, columns / 10);
  for (size_t c = 0; c < columns; ++c)
    // Collectives are numbered from #0, as in the text report and the tooltips.
    chart.column_labels.push_back(c % label_every == 0 ? fmt::format("#{}", c) : "");
  out += RenderHeatMap(chart);
  if (r.collectives.size() > columns) {
    Element(out, "p",
            fmt::format("first {} of {} collectives drawn", columns, r.collectives.size()),
            "class=\"note\"");
  }
  CloseSection(out);
}

}  // namespace

std::string RenderReportHtml(std::span<const RankReport> ranks,
                             std::span<const ReportFailure> failures, const CrossRankReport* job) {
  std::string out = PageStart("gpuwhy report");
  // One report per trace (an Nsight Systems export holds one per process), metric log, memory
  // snapshot or summary: not all of them are traces.
  out += fmt::format("<header><h1>gpuwhy report</h1><p class=\"meta\">{} input report{}{}</p>",
                     ranks.size(), ranks.size() == 1 ? "" : "s",
                     failures.empty() ? "" : fmt::format(", {} unusable", failures.size()));
  if (!failures.empty()) {
    out += "<ul class=\"errors\">";
    for (const ReportFailure& f : failures) out += "<li>" + Escape(f.message) + "</li>";
    out += "</ul>";
  }
  out += "</header>";
  if (job != nullptr) RenderJobVerdict(out, *job);
  if (ranks.size() > 1) RenderRanksHtml(out, ranks);
  if (job != nullptr) RenderLateArrivalHtml(out, *job);
  for (const RankReport& r : ranks) {
    out += fmt::format("<div class=\"rank\" id=\"rank-{}\">", RankNumber(r.header));
    // Without a trace (a memory snapshot, node logs) the trace's sections would say "none".
    const bool trace = HasTraceAnalysis(r);
    RenderHeaderSection(out, r.header, trace);
    if (r.analysis.hta_compat)
      Element(out, "p", report::HtaCompatText(r.analysis), "class=\"meta\"");
    RenderVerdict(out, r.header, r.diagnosis);
    if (trace) {
      RenderStepsHtml(out, r.analysis.steps);
      RenderUtilizationHtml(out, r.header, r.analysis);
      RenderIdleHtml(out, r.header, r.analysis.idle_gaps);
      RenderKernelsHtml(out, r.analysis);
      RenderCommunicationHtml(out, r.analysis.communication);
      RenderMemoryHtml(out, r.header, r.analysis, r.memory_series.devices.empty());
    }
    RenderMemoryTimelineHtml(out, r.header, r.memory_series);
    RenderChecklistHtml(out, r.diagnosis);
    if (trace) RenderImportHtml(out, r.header, r.analysis);
    out += "</div>";
  }
  return out + PageEnd();
}

}  // namespace gpuwhy
