// Text report: the per-rank header and the time-accounting sections (utilization, HTA
// temporal breakdown and idle split). The other sections live in text_report_*.cc.
#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "base/text_escape.h"
#include "report/diagnosis_sections.h"
#include "report/report.h"
#include "report/terminal_style.h"
#include "report/text_format.h"
#include "report/text_sections.h"

namespace gpuwhy {
namespace report {
namespace {

// Like FitWidth but keeps the end: for paths, where the file name matters most. A path is one
// line: a line break or a control byte in a file name is shown escaped, never acted on (a
// newline in a name would print a line of its own, a forged one).
std::string FitKeepEnd(std::string_view raw, size_t width) {
  const std::string escaped = text::EscapeControl(raw);
  std::string_view text = escaped;
  if (DisplayWidth(text) <= width) return std::string(text);
  size_t cut = text.size();
  size_t columns = 0;
  while (cut > 0 && columns + 1 < width) {
    --cut;
    if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80) ++columns;
  }
  return "…" + std::string(text.substr(cut));
}

void Field(std::string& out, std::string_view label, std::string_view value) {
  Line(out, fmt::format("  {:<10}{}", label, value));
}

// A field whose value wraps, continuation lines in the value column.
void WrappedField(std::string& out, std::string_view label, std::string_view value) {
  size_t at = out.size();
  Wrapped(out, value, 12, 12);
  out.replace(at, 12, fmt::format("  {:<10}", label));
}

std::string RankText(const RankHeader& h) {
  if (h.rank == kNoValue) return "unknown (single process, or no distributedInfo)";
  if (h.world_size == kNoValue) return fmt::format("{}", h.rank);
  return fmt::format("{} of {}", h.rank, h.world_size);
}

std::string DeviceText(const ReportDevice& d) {
  std::string text = fmt::format("GPU {}", d.id);
  if (!d.name.empty()) text += " " + FitWidth(d.name, 40);
  if (d.memory_bytes != kNoValue)
    text += fmt::format(" ({})", Bytes(static_cast<double>(d.memory_bytes)));
  if (!d.active) text += " (ran no GPU op)";
  return text;
}

// One line per device, except that consecutive devices that ran no GPU op and share a name and
// memory size share one line ("GPU 1-7 ... (ran no GPU op)"): an 8-GPU node whose trace is one
// rank's otherwise pushes the diagnosis off the first screen.
void DeviceLines(std::string& out, const std::vector<ReportDevice>& all_devices,
                 const DeviceRows& rows) {
  std::vector<ReportDevice> devices;
  for (const ReportDevice& d : all_devices) {
    if (rows.Keeps(d.id)) devices.push_back(d);
  }
  size_t i = 0;
  bool first = true;
  while (i < devices.size()) {
    size_t j = i + 1;
    while (!devices[i].active && j < devices.size() && !devices[j].active &&
           devices[j].name == devices[i].name &&
           devices[j].memory_bytes == devices[i].memory_bytes &&
           devices[j].id == devices[j - 1].id + 1) {
      ++j;
    }
    std::string text = DeviceText(devices[i]);
    if (j - i > 1) {
      text.replace(0, fmt::format("GPU {}", devices[i].id).size(),
                   fmt::format("GPU {}-{}", devices[i].id, devices[j - 1].id));
    }
    Field(out, first ? "devices" : "", text);
    first = false;
    i = j;
  }
  if (rows.left_out > 0) {
    Field(out, first ? "devices" : "",
          fmt::format("... {} more not listed ({} ran no GPU op)", rows.left_out,
                      rows.idle_left_out));
  }
}

std::string StepsText(const StepBreakdownResult& steps) {
  const StepExtents& e = steps.extents;
  if (e.steps.empty()) return "none";
  if (e.synthesized) {
    return fmt::format("no ProfilerStep: one step spans the trace ({})",
                       Ms(steps.mean_total_ns / 1e6));
  }
  std::string numbers = e.steps.size() == 1 ? fmt::format("#{}", e.steps.front().number)
                                            : fmt::format("#{} to #{}", e.steps.front().number,
                                                          e.steps.back().number);
  std::string text = fmt::format("{} analysed ({}), step time mean {}", e.steps.size(), numbers,
                                 Ms(steps.mean_total_ns / 1e6));
  if (!e.excluded.empty()) {
    constexpr size_t kListed = 50;
    std::span<const int64_t> listed(e.excluded.data(), std::min(e.excluded.size(), kListed));
    text += fmt::format("; {} left out (#{}{})", e.excluded.size(), fmt::join(listed, ", #"),
                        e.excluded.size() > kListed ? ", ..." : "");
  }
  return text;
}

std::string ShareCells(const UtilizationShare& share) { return Pct(share.kernel_pct); }

}  // namespace

void Heading(std::string& out, const Section& s, std::string_view title, std::string_view summary) {
  out += '\n';
  std::string plain = summary.empty() ? std::string(title) : fmt::format("{}: {}", title, summary);
  std::string fitted = FitWidth(plain, kReportWidth);
  if (s.options.colour == TextColour::kOff || fitted.size() < title.size()) {
    out += fitted + "\n";
    return;
  }
  out += "\x1b[1m" + std::string(title) + "\x1b[0m" + fitted.substr(title.size()) + "\n";
}

void NotApplicableLines(std::string& out, const std::vector<std::string>& reasons) {
  for (const std::string& reason : reasons) Wrapped(out, "n/a: " + reason, 2);
}

void RenderHeader(std::string& out, const Section& s) {
  const RankHeader& h = s.header;
  std::string title = h.rank == kNoValue ? "Trace" : fmt::format("Rank {}", h.rank);
  std::string path = FitKeepEnd(h.path, kReportWidth - title.size() - 4);
  std::string line = fmt::format("== {} ", title);
  out += s.options.colour == TextColour::kOn ? "\x1b[1m" + line + path + "\x1b[0m\n"
                                             : line + path + "\n";
  Field(out, "rank", RankText(h));
  if (h.devices.empty()) Field(out, "devices", "none recorded (CPU-only trace?)");
  DeviceLines(out, h.devices, s.rows.devices);
  if (s.rows.Capped()) WrappedField(out, "rows", s.rows.Why());
  const UtilizationResult& u = s.analysis.utilization;
  Interval window = u.valid ? u.window : s.analysis.steps.extents.Window();
  if (window.length() > 0) {
    Field(out, "window",
          fmt::format("{} to {} ({}, {})", Offset(window.start, h.span.start),
                      Offset(window.end, h.span.start), MsNs(window.length()),
                      u.window_from_steps || !u.valid ? "the analysed steps" : "the trace span"));
  }
  if (s.analysis.hta_compat) WrappedField(out, "numbers", HtaCompatText(s.analysis));
  Field(out, "steps", StepsText(s.analysis.steps));
  // Two step times exist; both are named (the host range is what `gpuwhy info` shows).
  const StepBreakdownResult& steps = s.analysis.steps;
  if (!steps.extents.steps.empty() && !steps.extents.synthesized) {
    Field(out, "",
          fmt::format("(to the end of each step's GPU work; host {} mean {})",
                      steps.extents.from_optimizer ? "iteration range" : "ProfilerStep range",
                      Ms(steps.mean_host_ns / 1e6)));
  }
}

void RenderSourceHeader(std::string& out, const Section& s) {
  const RankHeader& h = s.header;
  std::string line = "== " + FitKeepEnd(h.path, kReportWidth - 3);
  out += s.options.colour == TextColour::kOn ? "\x1b[1m" + line + "\x1b[0m\n" : line + "\n";
  DeviceLines(out, h.devices, s.rows.devices);
}

void RenderUtilization(std::string& out, const Section& s) {
  const UtilizationResult& u = s.analysis.utilization;
  if (!u.valid) {
    Heading(out, s, "Utilization", "");
    NotApplicableLines(out, u.not_applicable);
    return;
  }
  Heading(out, s, "Utilization",
          fmt::format("busy share of the {} window", MsNs(u.window.length())));
  TextTable t({{"scope", 12, Align::kLeft},
               {"kernel util (TB plugin)", 24},
               {"GPU-op util (HTA, Nsight)", 26},
               {"kernel busy", 14},
               {"GPU-op busy", 14}});
  t.AddRow({"rank", ShareCells(u.rank), Pct(u.rank.gpu_op_pct), MsNs(u.rank.kernel_busy_ns),
            MsNs(u.rank.gpu_op_busy_ns)});
  if (u.per_device.size() > 1) {
    for (const DeviceUtilization& d : u.per_device) {
      if (!s.rows.devices.Keeps(d.device)) continue;
      t.AddRow({fmt::format("GPU {}", d.device), ShareCells(d.share), Pct(d.share.gpu_op_pct),
                MsNs(d.share.kernel_busy_ns), MsNs(d.share.gpu_op_busy_ns)});
    }
  }
  if (!u.per_step.empty()) {
    auto [lo, hi] = std::minmax_element(u.per_step.begin(), u.per_step.end(),
                                        [](const StepUtilization& a, const StepUtilization& b) {
                                          return a.share.kernel_pct < b.share.kernel_pct;
                                        });
    t.AddRow({"step min", fmt::format("{} (#{})", Pct(lo->share.kernel_pct), lo->step),
              Pct(lo->share.gpu_op_pct), MsNs(lo->share.kernel_busy_ns),
              MsNs(lo->share.gpu_op_busy_ns)});
    t.AddRow({"step max", fmt::format("{} (#{})", Pct(hi->share.kernel_pct), hi->step),
              Pct(hi->share.gpu_op_pct), MsNs(hi->share.kernel_busy_ns),
              MsNs(hi->share.gpu_op_busy_ns)});
  }
  t.Render(out);
  NotApplicableLines(out, u.not_applicable);
}

void RenderTemporal(std::string& out, const Section& s) {
  const TemporalBreakdownResult& r = s.analysis.temporal;
  Heading(out, s, "Temporal breakdown",
          s.analysis.hta_compat
              ? "HTA get_temporal_breakdown, span = first to last GPU op; cuda_sync busy (as HTA)"
              : "HTA get_temporal_breakdown, span = first to last GPU op; cuda_sync not busy");
  if (!r.valid) {
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  TextTable t({{"scope", 8, Align::kLeft},
               {"span", 14},
               {"idle", 22},
               {"compute", 22},
               {"non-compute", 22}});
  auto row = [&](std::string scope, const TemporalBreakdown& b) {
    t.AddRow({std::move(scope), MsNs(b.span_ns),
              fmt::format("{} {:>7}", MsNs(b.idle_ns), Pct(b.idle_pct)),
              fmt::format("{} {:>7}", MsNs(b.compute_ns), Pct(b.compute_pct)),
              fmt::format("{} {:>7}", MsNs(b.non_compute_ns), Pct(b.non_compute_pct))});
  };
  row("rank", r.rank);
  for (const TemporalBreakdown& b : r.per_device)
    if (s.rows.devices.Keeps(b.device)) row(fmt::format("GPU {}", b.device), b);
  t.Render(out);
  NotApplicableLines(out, r.not_applicable);
}

void RenderHtaIdleSplit(std::string& out, const Section& s) {
  const HtaIdleSplitResult& r = s.analysis.hta_idle_split;
  Heading(out, s, "HTA idle split by stream",
          "host wait / kernel wait (< 30 µs) / other (HTA get_idle_time_breakdown)");
  if (r.streams.empty()) {
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  std::vector<const HtaStreamIdle*> streams;
  for (const HtaStreamIdle& stream : r.streams) streams.push_back(&stream);
  std::stable_sort(streams.begin(), streams.end(),
                   [](const HtaStreamIdle* a, const HtaStreamIdle* b) {
                     return a->total_idle_ns > b->total_idle_ns;
                   });
  // 2 + 16 + 8 + 10 + 3 × 18 + 5 × 2 = 100 columns at most.
  TextTable t({{"stream", 16, Align::kLeft},
               {"ops", 8},
               {"idle", 10},
               {"host wait", 18},
               {"kernel wait", 18},
               {"other", 18}});
  auto cell = [](const HtaIdleCategoryStats& c) {
    return fmt::format("{} {:>7}", MsNs(c.total_ns), Pct(100 * c.ratio));
  };
  DurationNs rank_total = 0;
  for (DurationNs ns : r.rank_total_ns) rank_total += ns;
  t.AddRow({"rank", "", MsNs(rank_total),
            fmt::format("{} {:>7}", MsNs(r.rank_total_ns[0]), Pct(100 * r.rank_ratio[0])),
            fmt::format("{} {:>7}", MsNs(r.rank_total_ns[1]), Pct(100 * r.rank_ratio[1])),
            fmt::format("{} {:>7}", MsNs(r.rank_total_ns[2]), Pct(100 * r.rank_ratio[2]))});
  for (size_t i = 0; i < streams.size() && i < s.options.top_n; ++i) {
    const HtaStreamIdle& st = *streams[i];
    t.AddRow({fmt::format("GPU {} stream {}", st.device, st.stream), Count(st.op_count),
              MsNs(st.total_idle_ns), cell(st.categories[0]), cell(st.categories[1]),
              cell(st.categories[2])});
  }
  t.Render(out);
  if (streams.size() > s.options.top_n) {
    Line(out, fmt::format("  ... {} more streams (JSON has them all)",
                          streams.size() - s.options.top_n));
  }
  NotApplicableLines(out, r.not_applicable);
}

void RenderAnalysisTables(std::string& out, const Section& s) {
  RenderUtilization(out, s);
  RenderTemporal(out, s);
  RenderHtaIdleSplit(out, s);
  RenderSteps(out, s);
  RenderIdleGaps(out, s);
  RenderKernels(out, s);
  RenderLaunch(out, s);
  RenderSyncCopies(out, s);
  RenderCommunication(out, s);
  RenderMemory(out, s);
  RenderDataQuality(out, s);
}

}  // namespace report

std::string RenderReportText(std::span<const RankReport> ranks, const TextReportOptions& options) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) out += "\n\n";
    report::Section s{ranks[i].header, ranks[i].analysis, options};
    if (!HasTraceAnalysis(ranks[i])) {
      // No trace: the source and the diagnosis, nothing of the (empty) analyses.
      report::RenderSourceHeader(out, s);
      report::RenderDiagnosisText(out, s, ranks[i].diagnosis);
      continue;
    }
    report::RenderHeader(out, s);
    if (ranks[i].replay.available)
      report::WrappedField(out, "replay", report::ReplayText(ranks[i].replay));
    report::RenderDiagnosisText(out, s, ranks[i].diagnosis);
    report::RenderAnalysisTables(out, s);
    report::RenderImportStats(out, s);
  }
  return TerminalText(out, options.colour == TextColour::kOn ? ColourMode::kOn : ColourMode::kOff);
}

}  // namespace gpuwhy
