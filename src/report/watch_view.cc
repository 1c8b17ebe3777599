#include "report/watch_view.h"

#include <time.h>

#include <algorithm>

#include <fmt/format.h>

#include "analyze/signals.h"
#include "base/text_width.h"
#include "report/terminal_style.h"

namespace gpuwhy {
namespace {

std::optional<double> Last(const MetricSeriesSet& set, std::string_view metric, int32_t device,
                           std::string_view entity = "") {
  const MetricSeries* s = set.Find(metric, device, entity);
  if (s == nullptr || s->empty()) return std::nullopt;
  return s->value.back();
}

void Field(std::string& out, const char* fmt_text, std::optional<double> v) {
  if (v) out += fmt::format(fmt::runtime(fmt_text), *v);
}

std::string ThrottleNames(uint64_t bits) {
  std::string names;
  for (const ThrottleReason& r : kThrottleReasons) {
    if (bits & r.bit) names += (names.empty() ? "" : ",") + std::string(r.id);
  }
  return names.empty() ? "none" : names;
}

std::string GpuLine(const MetricSeriesSet& set, int32_t d) {
  std::string out = fmt::format("gpu{}", d);
  Field(out, " util {:.0f}%", Last(set, "gpu.util_pct", d));
  Field(out, " sm {:.0f}", Last(set, "gpu.sm_clock_mhz", d));
  Field(out, "/{:.0f} MHz", Last(set, "gpu.sm_clock_max_mhz", d));
  Field(out, " mem {:.0f}", Last(set, "gpu.mem_used_mib", d));
  Field(out, "/{:.0f} MiB", Last(set, "gpu.mem_total_mib", d));
  Field(out, " pwr {:.0f}", Last(set, "gpu.power_w", d));
  Field(out, "/{:.0f} W", Last(set, "gpu.power_limit_w", d));
  Field(out, " {:.0f} C", Last(set, "gpu.temp_c", d));
  if (auto bits = Last(set, "gpu.throttle_reasons", d)) {
    out += " thr " + ThrottleNames(static_cast<uint64_t>(*bits));
  }
  auto gen = Last(set, "gpu.pcie_gen", d);
  if (!gen) gen = Last(set, "gpu.pcie_gen", d, "sysfs");
  auto width = Last(set, "gpu.pcie_width", d);
  if (!width) width = Last(set, "gpu.pcie_width", d, "sysfs");
  if (gen && width) out += fmt::format(" pcie gen{:.0f} x{:.0f}", *gen, *width);
  return out;
}

std::string HostLine(const MetricSeriesSet& set) {
  std::string out;
  Field(out, "cpu {:.0f}%", Last(set, "host.cpu_busy_pct", -1));
  Field(out, " iowait {:.0f}%", Last(set, "host.cpu_iowait_pct", -1));
  Field(out, " load {:.2f}", Last(set, "host.load1", -1));
  Field(out, " mem {:.0f}%", Last(set, "host.mem_used_pct", -1));
  return out;
}

std::string Clock(TimeNs t) {
  time_t seconds = static_cast<time_t>(t / kNsPerSec);
  tm local{};
  localtime_r(&seconds, &local);
  return fmt::format("{:02}:{:02}:{:02}", local.tm_hour, local.tm_min, local.tm_sec);
}

}  // namespace

std::string RenderWatchLine(const MetricSeriesSet& latest) {
  auto span = latest.Span();
  std::string out = span ? Clock(span->second) : "--:--:--";
  for (int32_t d : latest.DeviceIndices()) out += " " + GpuLine(latest, d);
  std::string host = HostLine(latest);
  if (!host.empty()) out += " | " + host;
  return TerminalText(out, ColourMode::kOff);
}

std::vector<std::string> WatchHints(const MetricSeriesSet& window) {
  std::vector<std::string> hints;
  SignalAnalysis a = AnalyzeSignals(window);
  for (const GpuSignals& g : a.gpus) {
    if (g.sawtooth.found) {
      hints.push_back(
          fmt::format("gpu{}: sawtooth utilization with period {:.1f} s, below 20% "
                      "{:.0f}% of the time: likely input-bound",
                      g.device, g.sawtooth.period_s, g.sawtooth.low_time_pct));
    }
    for (size_t r = 0; r < g.throttle_pct.size(); ++r) {
      if (g.throttle_pct[r] >= 5) {
        hints.push_back(fmt::format("gpu{}: {} {:.0f}% of the time", g.device,
                                    kThrottleReasons[r].label, g.throttle_pct[r]));
      }
    }
    if (g.pcie_downgraded_pct && *g.pcie_downgraded_pct >= 50) {
      hints.push_back(fmt::format("gpu{}: PCIe link below its maximum while busy", g.device));
    }
    if (g.compute_processes.size() >= 2) {
      hints.push_back(
          fmt::format("gpu{}: {} processes share this GPU", g.device, g.compute_processes.size()));
    }
  }
  const HostSignals& h = a.host;
  if (h.thread_pinned_gpu_idle_pct && *h.thread_pinned_gpu_idle_pct >= 20) {
    hints.push_back(fmt::format("{} pinned at 100% of a core while the GPUs idle: GIL-bound?",
                                h.busiest_thread));
  }
  if (h.io_wait_gpu_idle_pct && *h.io_wait_gpu_idle_pct >= 10) {
    hints.push_back("the host waits on disk while the GPUs idle: input I/O-bound?");
  }
  return hints;
}

std::string RenderWatchScreen(const MetricSeriesSet& window, size_t width) {
  std::vector<std::string> lines;
  auto span = window.Span();
  lines.push_back(
      fmt::format("gpuwhy watch  {}  (Ctrl-C to stop)", span ? Clock(span->second) : ""));
  for (int32_t d : window.DeviceIndices()) lines.push_back(GpuLine(window, d));
  if (window.DeviceIndices().empty()) lines.push_back("no GPU metrics (see notes)");
  lines.push_back("host " + HostLine(window));
  std::vector<const MetricSeries*> threads = window.FindAll("thread.cpu_pct");
  std::sort(threads.begin(), threads.end(), [](const MetricSeries* a, const MetricSeries* b) {
    return a->value.back() > b->value.back();
  });
  for (size_t i = 0; i < threads.size() && i < 5; ++i) {
    lines.push_back(fmt::format("  {} {:<16} {:5.0f}% of a core", threads[i]->key.entity,
                                threads[i]->label, threads[i]->value.back()));
  }
  for (const std::string& hint : WatchHints(window)) lines.push_back("hint: " + hint);
  std::string out;
  for (const std::string& line : lines) out += FitWidth(line, width) + "\n";
  return TerminalText(out, ColourMode::kOff);
}

}  // namespace gpuwhy
