#include "diff/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "analyze/idle_gaps.h"
#include "analyze/utilization.h"

namespace gpuwhy {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (upper + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

// The steps with a breakdown: a trace whose breakdown did not run (no timed events) has none.
std::vector<const RankStepTiming*> ComparedSteps(const RankSummary& run) {
  std::vector<const RankStepTiming*> steps;
  for (const RankStepTiming& s : run.steps) {
    if (s.time_ns != kNoValue) steps.push_back(&s);
  }
  return steps;
}

std::vector<double> StepTotals(const RankSummary& run) {
  std::vector<double> v;
  for (const RankStepTiming* s : ComparedSteps(run)) v.push_back(NsToMs(s->time_ns));
  return v;
}

std::vector<double> CategoryColumn(const RankSummary& run, size_t index) {
  std::vector<double> v;
  for (const RankStepTiming* s : ComparedSteps(run))
    v.push_back(index < s->category_ns.size() ? NsToMs(s->category_ns[index]) : 0.0);
  return v;
}

struct NamedValue {
  std::string_view name;
  double value = 0;
};

// idle.<cause>_ms_per_step, in the order the metrics hold them.
std::vector<NamedValue> IdleMsPerStep(const RankSummary& run) {
  std::vector<NamedValue> out;
  for (const Metric& m : run.metrics) {
    if (m.id == metric::kIdleTotalMsPerStep.id) continue;
    if (std::optional<std::string_view> cause = metric::kIdleCauseMsPerStep.Part(m.id))
      out.push_back({*cause, m.value});
  }
  return out;
}

size_t IndexOf(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

void DiffFindings(const RankSummary& base, const RankSummary& test, RunDiff& d) {
  for (const SummaryFinding& t : test.findings) {
    auto b = std::find_if(base.findings.begin(), base.findings.end(),
                          [&](const SummaryFinding& f) { return f.id == t.id; });
    FindingChange c{t.id, b == base.findings.end() ? "added" : "kept", t.title,
                    b == base.findings.end() ? 0.0 : NsToMs(b->recoverable_ns_per_step),
                    NsToMs(t.recoverable_ns_per_step)};
    d.findings.push_back(std::move(c));
  }
  for (const SummaryFinding& b : base.findings) {
    bool kept = std::any_of(test.findings.begin(), test.findings.end(),
                            [&](const SummaryFinding& f) { return f.id == b.id; });
    if (!kept)
      d.findings.push_back({b.id, "resolved", b.title, NsToMs(b.recoverable_ns_per_step), 0.0});
  }
}

// Per call, from milliseconds as the comparison has always computed it.
double MeanUs(const KernelTotal& k) {
  return k.count > 0 ? NsToMs(k.total_ns) * 1000 / static_cast<double>(k.count) : 0;
}

// Per name: added / removed, or slower / faster by mean duration per call. Time is per
// step so that runs with different step counts compare.
void DiffKernels(const RankSummary& base, const RankSummary& test, const DiffOptions& options,
                 RunDiff& d) {
  double base_steps = std::max<double>(1.0, static_cast<double>(ComparedSteps(base).size()));
  double test_steps = std::max<double>(1.0, static_cast<double>(ComparedSteps(test).size()));
  std::map<std::string, std::pair<const KernelTotal*, const KernelTotal*>> by_name;
  for (const KernelTotal& k : base.kernel_stats) by_name[k.name].first = &k;
  for (const KernelTotal& k : test.kernel_stats) by_name[k.name].second = &k;
  d.kernels_partial = !base.kernel_stats_complete || !test.kernel_stats_complete;
  std::vector<KernelChange> all;
  for (const auto& [name, pair] : by_name) {
    KernelChange c;
    c.name = name;
    if (pair.first) {
      c.base_count = pair.first->count;
      c.base_ms_per_step = NsToMs(pair.first->total_ns) / base_steps;
      c.base_mean_us = MeanUs(*pair.first);
    }
    if (pair.second) {
      c.test_count = pair.second->count;
      c.test_ms_per_step = NsToMs(pair.second->total_ns) / test_steps;
      c.test_mean_us = MeanUs(*pair.second);
    }
    // A name missing from a top-N list may still have run: only complete lists say so.
    if (!pair.first) {
      if (!base.kernel_stats_complete) continue;
      c.kind = "added";
    } else if (!pair.second) {
      if (!test.kernel_stats_complete) continue;
      c.kind = "removed";
    } else {
      double change =
          c.base_mean_us > 0 ? 100.0 * (c.test_mean_us - c.base_mean_us) / c.base_mean_us : 0;
      if (std::fabs(change) < options.kernel_change_pct) continue;
      c.kind = change > 0 ? "slower" : "faster";
    }
    all.push_back(std::move(c));
  }
  std::stable_sort(all.begin(), all.end(), [](const KernelChange& a, const KernelChange& b) {
    return std::fabs(a.test_ms_per_step - a.base_ms_per_step) >
           std::fabs(b.test_ms_per_step - b.base_ms_per_step);
  });
  std::map<std::string, size_t> shown;
  for (KernelChange& c : all) {
    if (shown[c.kind]++ < options.max_kernels) d.kernels.push_back(std::move(c));
  }
}

std::string SignedMs(double ms) {
  return fmt::format("{}{:.1f} ms", ms < 0 ? "−" : "+", std::fabs(ms));  // U+2212 minus
}

void Verdict(RunDiff& d, const DiffOptions& options) {
  double base = d.step.base.median, test = d.step.test.median;
  if (!(base > 0) || std::isnan(test)) {
    d.verdict = "no step time to compare";
    return;
  }
  d.step_change_pct = 100.0 * (test - base) / base;
  d.noise_ms = std::max(d.step.base.spread, d.step.test.spread);
  d.significant = std::fabs(test - base) > (std::isnan(d.noise_ms) ? 0.0 : d.noise_ms);
  double largest = 0;
  for (const ValueChange& c : d.categories) {
    if (std::fabs(c.delta()) > std::fabs(largest)) {
      largest = c.delta();
      d.moved_category = c.name;
    }
  }
  double speed = std::fabs(d.step_change_pct);
  std::string head = std::fabs(test - base) < 1e-9 ? "TEST is as fast as BASE per step"
                     : test < base ? fmt::format("TEST is {:.0f}% faster per step", speed)
                                   : fmt::format("TEST is {:.0f}% slower per step", speed);
  d.verdict = fmt::format(
      "{} ({:.1f} → {:.1f} ms median{})", head, base, test,
      d.significant ? "" : fmt::format(", within step-to-step noise of {:.1f} ms", d.noise_ms));
  if (!d.moved_category.empty())
    d.verdict += fmt::format("; {} {}", d.moved_category, SignedMs(largest));
  d.regressed = !std::isnan(options.max_regression_pct) &&
                d.step_change_pct > options.max_regression_pct && d.significant;
}

}  // namespace

Spread RobustSpread(std::vector<double> values) {
  Spread s;
  s.n = values.size();
  if (values.empty()) return s;
  s.median = Median(values);
  for (double& v : values) v = std::fabs(v - s.median);
  s.spread = 1.4826 * Median(values);
  return s;
}

RunDiff DiffRuns(const RankSummary& base, const RankSummary& test, const DiffOptions& options) {
  RunDiff d;
  d.base_path = base.path;
  d.test_path = test.path;
  d.step = {"step", RobustSpread(StepTotals(base)), RobustSpread(StepTotals(test))};
  for (size_t i = 0; i < base.step_categories.size(); ++i) {
    size_t j = IndexOf(test.step_categories, base.step_categories[i]);
    if (j == test.step_categories.size()) continue;
    d.categories.push_back({base.step_categories[i], RobustSpread(CategoryColumn(base, i)),
                            RobustSpread(CategoryColumn(test, j))});
  }
  d.base_kernel_util_pct = base.MetricValue(metric::kUtilKernelPct.id, NAN);
  d.test_kernel_util_pct = test.MetricValue(metric::kUtilKernelPct.id, NAN);
  d.base_gpu_op_util_pct = base.MetricValue(metric::kUtilGpuOpPct.id, NAN);
  d.test_gpu_op_util_pct = test.MetricValue(metric::kUtilGpuOpPct.id, NAN);
  std::vector<NamedValue> test_idle = IdleMsPerStep(test);
  for (const NamedValue& b : IdleMsPerStep(base)) {
    for (const NamedValue& t : test_idle) {
      if (t.name == b.name)
        d.idle.push_back({std::string(b.name), {b.value, NAN, 1}, {t.value, NAN, 1}});
    }
  }
  DiffFindings(base, test, d);
  DiffKernels(base, test, options, d);
  Verdict(d, options);
  for (const RankSummary* run : {&base, &test}) {
    if (run->ranks_in_input > 1) {
      d.notes.push_back(
          fmt::format("{} holds {} ranks: the first is compared", run->path, run->ranks_in_input));
    }
    if (size_t steps = ComparedSteps(*run).size(); steps < 3) {
      d.notes.push_back(fmt::format(
          "{} has {} analysed step(s): the step-to-step noise is poorly known", run->path, steps));
    }
  }
  if (d.kernels_partial) {
    d.notes.push_back(
        "kernels: a JSON report lists its top kernels only; added / removed are shown where both "
        "lists are complete");
  }
  return d;
}

}  // namespace gpuwhy
