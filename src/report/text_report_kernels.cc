// Text report: top kernels and launch overhead.
#include <algorithm>

#include <fmt/format.h>

#include "report/efficiency_lines.h"
#include "report/text_format.h"
#include "report/text_sections.h"
#include "base/percent.h"

namespace gpuwhy::report {
namespace {

std::string Threshold(DurationNs ns) { return Duration(static_cast<double>(ns)); }

void RenderKernelSummary(std::string& out, const KernelStatsResult& r) {
  const AnalysisOptions defaults;
  std::string text = fmt::format(
      "{} under {} ({} of kernel time)",
      Pct(PercentOf(static_cast<double>(r.short_count), static_cast<double>(r.kernel_count))),
      Threshold(defaults.short_kernel_ns),
      Pct(PercentOf(static_cast<double>(r.short_time_ns), static_cast<double>(r.kernel_time_ns))));
  if (r.tensor_core_applicable) {
    text += fmt::format(
        "; tensor cores {} of kernel time; TC-eligible work without them {}",
        Pct(PercentOf(static_cast<double>(r.tensor_core_ns), static_cast<double>(r.kernel_time_ns))),
        MsNs(r.tc_eligible_without_tc_ns));
  }
  Wrapped(out, text, 2);
  std::vector<std::string> classes;
  for (const KernelClassShare& c : r.classes) {
    if (c.total_ns == 0) continue;
    classes.push_back(fmt::format("{} {}", KernelClassName(c.kernel_class), Pct(c.time_pct)));
  }
  if (!classes.empty())
    Wrapped(out, fmt::format("classes by time: {}", fmt::join(classes, ", ")), 2);
  // HTA's get_gpu_kernel_breakdown kernel types: shares of the union of GPU-op time.
  std::vector<std::string> types;
  for (const HtaTypeShare& t : r.hta_types)
    types.push_back(fmt::format("{} {}", t.kernel_type, Pct(t.pct)));
  if (!types.empty())
    Wrapped(out, fmt::format("HTA kernel types (share of GPU-op time): {}", fmt::join(types, ", ")),
            2);
}

std::string PctOrDash(const std::optional<double>& pct) {
  return pct ? fmt::format("{:.1f}%", *pct) : "-";
}

// The top kernels measured by the Nsight Compute exports given beside the trace.
void RenderProfiledKernels(std::string& out, const Section& s) {
  const ProfiledKernelsResult& r = s.analysis.profiled_kernels;
  if (r.profiles == 0) return;
  Wrapped(out,
          fmt::format("measured by Nsight Compute ({} kernels in {} exports): {} of kernel time "
                      "classified",
                      Count(static_cast<int64_t>(r.profiled_kernels)),
                      Count(static_cast<int64_t>(r.profiles)), Pct(r.classified_time_pct)),
          2);
  NotApplicableLines(out, r.not_applicable);
  if (r.top.empty()) return;
  TextTable t({{"name", 29, Align::kLeft},
               {"time", 7},
               {"roofline class", 17, Align::kLeft},
               {"SM", 7},
               {"memory", 7},
               {"occup.", 7},
               {"matched by", 21, Align::kLeft}},
              2, /*tight=*/true);
  std::vector<std::string> names;
  for (const ProfiledTopKernel& k : r.top) names.push_back(k.trace_name);
  names = ShortenKernelNames(names, 29);
  for (size_t i = 0; i < r.top.size(); ++i) {
    const ProfiledTopKernel& k = r.top[i];
    t.AddRow({names[i], Pct(k.time_pct), std::string(RooflineClassName(k.roofline.roofline_class)),
              PctOrDash(k.roofline.sm_pct), PctOrDash(k.roofline.memory_pct),
              PctOrDash(k.roofline.achieved_occupancy_pct),
              fmt::format("{} #{}", ProfileMatchName(k.match), k.profile_id)});
  }
  t.Render(out);
  for (const ProfiledTopKernel& k : r.top) {
    Wrapped(out,
            fmt::format("{}: {}", RooflineClassName(k.roofline.roofline_class), k.roofline.rule),
            4);
  }
}

// Grid fill estimated from the launch arguments, and the kernels that cannot fill the SMs.
void RenderSmEfficiency(std::string& out, const Section& s) {
  const SmEfficiencyResult& r = s.analysis.sm_efficiency;
  NotApplicableLines(out, r.not_applicable);
  if (!r.valid) return;
  Wrapped(out, GridFillSentence(r), 2);
  if (r.top_small_grids.empty()) return;
  TextTable t({{"small grid", 29, Align::kLeft},
               {"count", 8},
               {"time", 11},
               {"blocks/SM", 9},
               {"grid x block", 14},
               {"occup.", 7}},
              2, /*tight=*/true);
  std::vector<std::string> names;
  const size_t rows = std::min<size_t>(r.top_small_grids.size(), 5);
  for (size_t i = 0; i < rows; ++i) names.push_back(r.top_small_grids[i].name);
  names = ShortenKernelNames(names, 29);
  for (size_t i = 0; i < rows; ++i) {
    const SmallGridKernel& k = r.top_small_grids[i];
    std::string shape = k.blocks > 0 && k.threads_per_block > 0
                            ? fmt::format("{} x {}", k.blocks, k.threads_per_block)
                            : "-";
    t.AddRow({names[i], Count(k.count), MsNs(k.total_ns),
              fmt::format("{:.2f}", k.mean_blocks_per_sm), shape, PctOrDash(k.est_occupancy_pct)});
  }
  t.Render(out);
}

// Model FLOPs and MFU (docs/metrics/flops.md).
void RenderFlops(std::string& out, const Section& s) {
  const FlopsResult& r = s.analysis.flops;
  if (!r.valid) {
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  Wrapped(out, FlopsSentence(r), 2);
  NotApplicableLines(out, r.not_applicable);
}

// Sampled GPU activity (GPU_METRICS): nothing without it, the checklist says how to capture it.
void RenderGpuMetrics(std::string& out, const Section& s) {
  std::string line = GpuMetricsSentence(s.analysis.gpu_metrics);
  if (!line.empty()) Wrapped(out, line, 2);
}

void RenderQueues(std::string& out, const Section& s) {
  const LaunchStatsResult& r = s.analysis.launch;
  if (r.queues.empty()) return;
  std::vector<const StreamQueue*> queues;
  for (const StreamQueue& q : r.queues) queues.push_back(&q);
  std::stable_sort(queues.begin(), queues.end(), [](const StreamQueue* a, const StreamQueue* b) {
    return a->samples.max > b->samples.max;
  });
  const AnalysisOptions defaults;
  TextTable t({{"queue of stream", 18, Align::kLeft},
               {"mean (time-weighted)", 20},
               {"p95", 8},
               {"max", 8},
               {fmt::format("time full ({})", defaults.full_queue_length), 16},
               {"% of span", 10}});
  for (size_t i = 0; i < queues.size() && i < s.options.top_n; ++i) {
    const StreamQueue& q = *queues[i];
    t.AddRow({fmt::format("GPU {} stream {}", q.device, q.stream),
              fmt::format("{:.1f} launches", q.time_weighted_mean),
              fmt::format("{:.0f}", q.samples.p95), fmt::format("{:.0f}", q.samples.max),
              MsNs(q.full_time), Pct(100 * q.full_ratio)});
  }
  t.Render(out);
}

}  // namespace

void RenderKernels(std::string& out, const Section& s) {
  const KernelStatsResult& r = s.analysis.kernels;
  if (r.kernel_count == 0) {
    Heading(out, s, "Top kernels", "");
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  Heading(out, s, "Top kernels",
          fmt::format("{} kernels, {} of kernel time (overlaps counted twice)",
                      Count(r.kernel_count), MsNs(r.kernel_time_ns)));
  TextTable t({{"name", 29, Align::kLeft},
               {"count", 8},
               {"total", 11},
               {"mean", 9},
               {"median", 9},
               {"p95", 9},
               {"class", 13, Align::kLeft},
               {"TC", 2, Align::kLeft}},
              2, /*tight=*/true);
  const size_t rows = std::min(r.top.size(), s.options.top_n);
  std::vector<std::string> names;
  for (size_t i = 0; i < rows; ++i) names.push_back(r.top[i].display_name);
  names = ShortenKernelNames(names, 29);
  for (size_t i = 0; i < rows; ++i) {
    const KernelNameStats& k = r.top[i];
    t.AddRow({names[i], Count(k.count), MsNs(k.total_ns), Us(k.duration_us.mean),
              Us(k.duration_us.median), Us(k.duration_us.p95),
              std::string(KernelClassName(k.kernel_class)), k.tensor_cores ? "TC" : ""});
  }
  t.Render(out);
  RenderKernelSummary(out, r);
  NotApplicableLines(out, r.not_applicable);
  RenderSmEfficiency(out, s);
  RenderFlops(out, s);
  RenderGpuMetrics(out, s);
  RenderProfiledKernels(out, s);
}

void RenderLaunch(std::string& out, const Section& s) {
  const LaunchStatsResult& r = s.analysis.launch;
  if (r.calls == 0) {
    Heading(out, s, "Launch", "");
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  std::string graphs = r.graph_launches > 0
                           ? fmt::format(" ({} graph launches -> {} ops)", Count(r.graph_launches),
                                         Count(r.graph_ops))
                           : "";
  Heading(out, s, "Launch",
          fmt::format("{} calls -> {} GPU ops{}; {} in launch calls", Count(r.calls),
                      Count(r.gpu_ops), graphs, MsNs(r.call_total)));
  const AnalysisOptions defaults;
  TextTable t({{"per launch", 18, Align::kLeft},
               {"p50", 10},
               {"p95", 10},
               {"max", 10},
               {"outliers", 26, Align::kLeft}});
  t.AddRow({"delay (GPU start)", Duration(r.delay_ns.median), Duration(r.delay_ns.p95),
            Duration(r.delay_ns.max),
            fmt::format("{} over {}", Count(r.delay_outliers),
                        Threshold(defaults.launch_delay_outlier_ns))});
  t.AddRow({"call duration", Duration(r.cpu_duration_ns.median), Duration(r.cpu_duration_ns.p95),
            Duration(r.cpu_duration_ns.max),
            fmt::format("{} over {}", Count(r.runtime_outliers),
                        Threshold(defaults.runtime_outlier_ns))});
  t.Render(out);
  Line(out,
       fmt::format("  short kernels (GPU time < launch call time): {} of {} launches ({})",
                   Count(r.short_kernels), Count(r.calls),
                   Pct(PercentOf(static_cast<double>(r.short_kernels), static_cast<double>(r.calls)))));
  RenderQueues(out, s);
  NotApplicableLines(out, r.not_applicable);
}

}  // namespace gpuwhy::report
