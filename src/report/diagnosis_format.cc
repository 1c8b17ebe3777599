// Formatting of the diagnosis' numbers, shared by the text and Markdown reports, so a value
// reads the same in both.
#include <cmath>

#include <fmt/format.h>

#include "report/diagnosis_sections.h"
#include "report/text_format.h"

namespace gpuwhy::report {

std::string MetricValue(double value, std::string_view unit) {
  if (std::isnan(value)) return "n/a";
  if (unit == unit::kPercent) return Pct(value);
  if (unit == unit::kMs) return Ms(value);
  if (unit == unit::kUs) return Us(value);
  if (unit == unit::kBytes) return Bytes(value);
  if (unit == unit::kGBps) return GBps(value);
  if (unit == unit::kCount && std::fabs(value) < 9e15 && value == std::floor(value)) {
    return Count(static_cast<int64_t>(value));
  }
  if (unit == unit::kCount) return fmt::format("{:.1f}", value);
  if (unit == unit::kRatio) return fmt::format("{:.3g}", value);
  return fmt::format("{:.4g} {}", value, unit);
}

std::string ScopeText(const MetricScope& scope) {
  std::string parts;
  auto add = [&](std::string part) {
    if (!parts.empty()) parts += ' ';
    parts += part;
  };
  if (scope.device >= 0) add(fmt::format("GPU {}", scope.device));
  if (scope.stream >= 0) add(fmt::format("stream {}", scope.stream));
  if (scope.step >= 0) add(fmt::format("step {}", scope.step));
  return parts.empty() ? "" : "[" + parts + "]";
}

std::string EvidenceText(const FindingEvidence& e) {
  const Metric& m = e.metric;
  std::string text = m.id;
  if (std::string scope = ScopeText(m.scope); !scope.empty()) text += " " + scope;
  text += " = " + MetricValue(m.value, m.unit);
  // A threshold of 0 without a source only says "present": the value is context.
  if (!e.comparison.empty() && (e.threshold != 0 || !e.threshold_source.empty())) {
    text += fmt::format(" {} {}", e.comparison, MetricValue(e.threshold, m.unit));
  }
  return text;
}

std::string RangeText(const EvidenceRange& r, TimeNs origin) {
  std::string where = r.device >= 0 ? fmt::format("GPU {} ", r.device) : "";
  if (r.stream >= 0) where += fmt::format("stream {} ", r.stream);
  std::string text =
      fmt::format("{}{} for {}", where, Offset(r.start, origin), MsNs(r.end - r.start));
  if (!r.label.empty()) text += ": " + r.label;
  return text;
}

std::string QuoteText(const SourceQuote& q) {
  std::string_view file = q.file;
  size_t slash = file.rfind('/');
  if (slash != std::string_view::npos) file.remove_prefix(slash + 1);
  if (q.line <= 0) return fmt::format("{}: {}", file, q.text);
  return fmt::format("{}:{}: {}", file, q.line, q.text);
}

std::string SpeedupText(double speedup) { return fmt::format("{:.2f}×", speedup); }

std::string StepAndIdleText(const Diagnosis& d) {
  if (d.step_ns <= 0) return "";
  if (d.kernel_total_only) {
    return fmt::format("kernel time {} (the report's total; no timeline, so GPU idle is unknown)",
                       MsNs(d.step_ns));
  }
  return fmt::format(
      "step {}{}; GPU idle {}/step ({})", MsNs(d.step_ns),
      d.steps_synthesized ? " (whole trace)" : fmt::format(" (mean of {})", d.step_count),
      MsNs(d.idle_ns_per_step),
      Pct(100.0 * static_cast<double>(d.idle_ns_per_step) / static_cast<double>(d.step_ns)));
}

std::string NoFindingText(const Diagnosis& d) {
  if (d.outcomes.empty())
    return "Nothing was assessed from this input on its own: the note says what it needs.";
  return "No rule fired: nothing here costs a measurable share of the step. The checklist says "
         "what this trace could and could not show.";
}

std::string HtaCompatText(const TraceAnalysis& a) {
  return fmt::format(
      "HolisticTraceAnalysis-compatible (--hta-compat): last ProfilerStep dropped{}; {}; "
      "cuda_sync counted busy in the temporal breakdown",
      a.temporal.cutoff ? "" : " (none to drop: fewer than 2 steps)",
      a.temporal.rounded ? "times rounded to µs as HTA's loader does (ceil start, floor end)"
                         : "times already whole µs (no rounding needed)");
}

}  // namespace gpuwhy::report
