// Step extents as the TensorBoard plugin derives them from ProfilerStep spans.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

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
  // Later steps that one-off work fills (a recompile, a teardown: warmup.h one_off_steps) are
  // left out too while another step stays: they are no steady step either.
  size_t one_off = 0;
  for (const Interval& host : warmup.one_off_steps) {
    auto it = std::find_if(out.steps.begin(), out.steps.end(),
                           [&](const StepExtent& s) { return s.host.start == host.start; });
    if (it == out.steps.end() || out.steps.size() <= 1) continue;
    out.excluded.push_back(it->number);
    out.steps.erase(it);
    ++one_off;
  }
  if (one_off > 0) {
    out.notes.push_back(fmt::format(
        "left out {} later step(s) that one-off work fills (a recompile, teardown): per-step "
        "numbers describe the steady state",
        one_off));
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

DurationNs MedianOf(std::vector<DurationNs> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// How much longer the last step's host span runs on after its work (its last host event and
// its last GPU op) than the other steps' spans do: the profiler's stop and flush. 0 when the
// difference is under 1 ms or 10% of a step: an ordinary last step.
DurationNs FlushTail(const Trace& trace, const std::vector<StepExtent>& steps) {
  if (steps.size() < 2) return 0;
  std::unordered_map<TimeNs, TimeNs> device_end;  // by host start: rows may repeat numbers
  std::unordered_set<uint32_t> step_names;
  for (const StepTable::Row& r : trace.steps.rows) {
    if (r.gpu_op_count > 0) device_end[r.host_start] = r.device_end;
    step_names.insert(r.name.value);
  }
  std::vector<TimeNs> work_end;
  for (const StepExtent& s : steps) {
    auto it = device_end.find(s.host.start);
    work_end.push_back(it == device_end.end() ? s.host.start : std::min(it->second, s.host.end));
  }
  const CpuSliceTable& t = trace.cpu_slices;
  for (size_t i = 0; i < t.size(); ++i) {
    if (step_names.count(t.name[i].value) > 0) continue;
    auto it = std::upper_bound(steps.begin(), steps.end(), t.start[i],
                               [](TimeNs ts, const StepExtent& s) { return ts < s.host.start; });
    if (it == steps.begin()) continue;
    size_t k = static_cast<size_t>(it - steps.begin()) - 1;
    if (t.start[i] >= steps[k].host.end) continue;
    work_end[k] = std::max(work_end[k], std::min(t.end[i], steps[k].host.end));
  }
  std::vector<DurationNs> tails, lengths;
  for (size_t k = 0; k + 1 < steps.size(); ++k) {
    tails.push_back(steps[k].host.end - work_end[k]);
    lengths.push_back(steps[k].host.length());
  }
  DurationNs extra = (steps.back().host.end - work_end.back()) - MedianOf(tails);
  bool flush = extra >= kNsPerMs && static_cast<double>(extra) >= 0.1 * MedianOf(lengths);
  return flush ? extra : 0;
}

}  // namespace

const StepExtents& SharedStepExtents(const AnalysisInput& input, StepExtents& scratch) {
  if (input.extents != nullptr) return *input.extents;
  scratch = ComputeStepExtents(input.trace, input.options, input.warmup);
  return scratch;
}

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
  // The profiler's own stop and flush can run on inside the capture's last ProfilerStep:
  // host time after the step's work with no GPU work. HTA always leaves the last step out;
  // we do when it shows that tail, unless it is the only step left.
  const bool last_row_kept =
      !out.steps.empty() && out.steps.back().host.start == rows.back().host_start;
  const DurationNs tail = !out.from_optimizer && last_row_kept ? FlushTail(trace, out.steps) : 0;
  const bool flush_tail = tail > 0;
  if ((flush_tail || options.drop_last_step) && out.steps.size() > 1) {
    if (flush_tail) out.last_step_flush_ns = tail;
    out.excluded.push_back(out.steps.back().number);
    out.notes.push_back(
        flush_tail
            ? fmt::format("left out the last step (ProfilerStep#{}): it ends {:.1f} ms after "
                          "its work, in the profiler's own stop and flush (HTA leaves the "
                          "last step out too)",
                          out.steps.back().number, NsToMs(tail))
            : "left out the last step (drop_last_step, as HTA does)");
    out.steps.pop_back();
  }
  std::sort(out.excluded.begin(), out.excluded.end());
  return out;
}

}  // namespace gpuwhy
