// Step extents as the TensorBoard plugin derives them from ProfilerStep spans.
#include <fmt/format.h>

#include <algorithm>

#include "analyze/step_breakdown.h"
#include "analyze/warmup.h"

namespace gpuwhy {

Interval StepExtents::Window() const {
  if (steps.empty()) return {};
  return {steps.front().window.start, steps.back().window.end};
}

namespace {

// Leaves the leading warm-up steps out while a steady step remains; otherwise keeps them and
// says the capture holds no steady state.
void LeaveOutWarmup(const WarmupResult& warmup, StepExtents& out) {
  if (out.synthesized) {
    Interval window = out.Window();
    DurationNs one_off = warmup.one_off.CoveredLength(window);
    if (window.length() > 0 &&
        static_cast<double>(one_off) >=
            WarmupThresholds{}.step_one_off_share * static_cast<double>(window.length())) {
      out.steady_state = false;
      out.notes.push_back(
          fmt::format("no steady state: one-off set-up fills {:.0f}% of the capture",
                      100.0 * static_cast<double>(one_off) / static_cast<double>(window.length())));
    }
    return;
  }
  size_t lead = std::min(warmup.leading_warmup_steps, out.steps.size());
  if (lead == 0) return;
  if (lead == out.steps.size()) {
    out.steady_state = false;
    out.notes.push_back(fmt::format(
        "no steady state: {} captured step(s) are warm-up (the first iterations or mostly "
        "one-off set-up)",
        lead));
    return;
  }
  for (size_t i = 0; i < lead; ++i) out.warmup.push_back(out.steps[i].number);
  out.steps.erase(out.steps.begin(), out.steps.begin() + static_cast<std::ptrdiff_t>(lead));
  out.notes.push_back(fmt::format(
      "left out the first {} step(s) as warm-up (the first iterations or mostly one-off "
      "set-up): per-step numbers describe the steady state",
      lead));
}

}  // namespace

StepExtents ComputeStepExtents(const Trace& trace, const AnalysisOptions& options,
                               const WarmupResult* warmup) {
  StepExtents out;
  const auto& rows = trace.steps.rows;
  out.synthesized = trace.steps.synthesized;
  out.from_optimizer = trace.steps.from_optimizer;
  if (rows.empty()) return out;
  for (const auto& r : rows) {
    out.steps.push_back(
        {r.number, {r.host_start, r.host_end}, {r.host_start, r.host_end}, r.gpu_op_count});
    out.device_extended = out.device_extended || r.gpu_op_count > 0;
  }
  if (trace.steps.from_optimizer) {
    out.notes.push_back(fmt::format(
        "no ProfilerStep in the trace: its {} steps are the iterations between optimizer steps "
        "(each ends where an outermost Optimizer.step#... ends)",
        rows.size()));
  }
  if (out.synthesized) {
    // The plugin spans the whole host activity; our synthesized step spans host and GPU.
    out.notes.push_back("no ProfilerStep in the trace: one step spans the whole trace");
    if (warmup != nullptr) LeaveOutWarmup(*warmup, out);
    return out;
  }
  if (out.device_extended) {
    // GPU work launched before the first step (warm-up) that is still running when the
    // step starts delays its start, as in the plugin.
    TimeNs prev_end = rows.front().host_start;
    if (rows.front().gpu_op_count > 0) {
      for (TimeNs end : trace.gpu_ops.end) {
        if (end < rows.front().device_start) prev_end = std::max(prev_end, end);
      }
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      StepExtent& s = out.steps[i];
      TimeNs start = std::max(prev_end, rows[i].host_start);
      TimeNs end = rows[i].host_end;
      if (rows[i].gpu_op_count > 0) end = std::max(end, rows[i].device_end);
      end = std::max(end, start);
      s.window = {start, end};
      prev_end = end;
    }
    // Trailing steps whose kernels the profiler may have cut off are left out: no GPU op
    // at all, or the last one with under 80% of the previous step's GPU ops.
    if (out.steps.size() > 1) {
      size_t keep = out.steps.size();
      while (keep > 0 && out.steps[keep - 1].gpu_op_count == 0) --keep;
      if (keep > 1 && out.steps[keep - 2].gpu_op_count * 0.8 > out.steps[keep - 1].gpu_op_count)
        --keep;
      if (keep == 0) keep = out.steps.size();
      for (size_t i = keep; i < out.steps.size(); ++i) out.excluded.push_back(out.steps[i].number);
      if (keep < out.steps.size()) {
        out.notes.push_back(fmt::format(
            "left out the last {} step(s): the profiler may have missed GPU work they launched",
            out.steps.size() - keep));
      }
      out.steps.resize(keep);
    }
  }
  if (warmup != nullptr) LeaveOutWarmup(*warmup, out);
  if (options.drop_last_step && out.steps.size() > 1) {
    out.excluded.push_back(out.steps.back().number);
    out.steps.pop_back();
    out.notes.push_back("left out the last step (drop_last_step, as HTA does)");
  }
  std::sort(out.excluded.begin(), out.excluded.end());
  return out;
}

}  // namespace gpuwhy
