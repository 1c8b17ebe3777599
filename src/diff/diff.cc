#include "diff/diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

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

std::vector<double> StepTotals(const RunSummary& run) {
  std::vector<double> v;
  for (const RunStep& s : run.steps) v.push_back(s.total_ms);
  return v;
}

std::vector<double> CategoryColumn(const RunSummary& run, size_t index) {
  std::vector<double> v;
  for (const RunStep& s : run.steps)
    v.push_back(index < s.category_ms.size() ? s.category_ms[index] : 0.0);
  return v;
}

size_t IndexOf(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

void DiffFindings(const RunSummary& base, const RunSummary& test, RunDiff& d) {
  for (const RunFinding& t : test.findings) {
    auto b = std::find_if(base.findings.begin(), base.findings.end(),
                          [&](const RunFinding& f) { return f.id == t.id; });
    FindingChange c{t.id, b == base.findings.end() ? "added" : "kept", t.title,
                    b == base.findings.end() ? 0.0 : b->recoverable_ms_per_step,
                    t.recoverable_ms_per_step};
    d.findings.push_back(std::move(c));
  }
  for (const RunFinding& b : base.findings) {
    bool kept = std::any_of(test.findings.begin(), test.findings.end(),
                            [&](const RunFinding& f) { return f.id == b.id; });
    if (!kept) d.findings.push_back({b.id, "resolved", b.title, b.recoverable_ms_per_step, 0.0});
  }
}

// Per name: added / removed, or slower / faster by mean duration per call. Time is per
// step so that runs with different step counts compare.
void DiffKernels(const RunSummary& base, const RunSummary& test, const DiffOptions& options,
                 RunDiff& d) {
  double base_steps = std::max<double>(1.0, static_cast<double>(base.steps.size()));
  double test_steps = std::max<double>(1.0, static_cast<double>(test.steps.size()));
  std::map<std::string, std::pair<const RunKernel*, const RunKernel*>> by_name;
  for (const RunKernel& k : base.kernels) by_name[k.name].first = &k;
  for (const RunKernel& k : test.kernels) by_name[k.name].second = &k;
  d.kernels_partial = !base.kernels_complete || !test.kernels_complete;
  std::vector<KernelChange> all;
  for (const auto& [name, pair] : by_name) {
    KernelChange c;
    c.name = name;
    if (pair.first) {
      c.base_count = pair.first->count;
      c.base_ms_per_step = pair.first->total_ms / base_steps;
      c.base_mean_us = pair.first->count > 0
                           ? pair.first->total_ms * 1000 / static_cast<double>(pair.first->count)
                           : 0;
    }
    if (pair.second) {
      c.test_count = pair.second->count;
      c.test_ms_per_step = pair.second->total_ms / test_steps;
      c.test_mean_us = pair.second->count > 0
                           ? pair.second->total_ms * 1000 / static_cast<double>(pair.second->count)
                           : 0;
    }
    // A name missing from a top-N list may still have run: only complete lists say so.
    if (!pair.first) {
      if (!base.kernels_complete) continue;
      c.kind = "added";
    } else if (!pair.second) {
      if (!test.kernels_complete) continue;
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

RunSummary SummarizeRun(const RankReport& rank) {
  RunSummary r;
  r.path = rank.header.path;
  r.source = "trace";
  r.rank = rank.header.rank == kNoValue ? -1 : rank.header.rank;
  const TraceAnalysis& a = rank.analysis;
  for (size_t c = 0; c < kStepCategoryCount; ++c)
    r.categories.emplace_back(StepCategoryName(static_cast<StepCategory>(c)));
  for (const StepCosts& s : a.steps.steps) {
    RunStep step{s.number, NsToMs(s.total_ns), {}};
    for (DurationNs ns : s.ns) step.category_ms.push_back(NsToMs(ns));
    r.steps.push_back(std::move(step));
  }
  if (a.utilization.valid) {
    r.kernel_utilization_pct = a.utilization.rank.kernel_pct;
    r.gpu_op_utilization_pct = a.utilization.rank.gpu_op_pct;
  }
  double steps = static_cast<double>(a.idle_gaps.step_count);
  for (size_t c = 0; c < kIdleCauseCount && steps > 0; ++c) {
    r.idle_ms_per_step.push_back({std::string(IdleCauseName(static_cast<IdleCause>(c))),
                                  NsToMs(a.idle_gaps.rank.ns[c]) / steps});
  }
  for (const Finding& f : rank.diagnosis.findings) {
    r.findings.push_back(
        {f.id, std::string(SeverityName(f.severity)), f.title, NsToMs(f.recoverable_ns_per_step)});
  }
  for (const KernelNameStats& k : a.kernels.all_names)
    r.kernels.push_back({k.display_name, k.count, NsToMs(k.total_ns)});
  return r;
}

RunDiff DiffRuns(const RunSummary& base, const RunSummary& test, const DiffOptions& options) {
  RunDiff d;
  d.base_path = base.path;
  d.test_path = test.path;
  d.step = {"step", RobustSpread(StepTotals(base)), RobustSpread(StepTotals(test))};
  for (size_t i = 0; i < base.categories.size(); ++i) {
    size_t j = IndexOf(test.categories, base.categories[i]);
    if (j == test.categories.size()) continue;
    d.categories.push_back({base.categories[i], RobustSpread(CategoryColumn(base, i)),
                            RobustSpread(CategoryColumn(test, j))});
  }
  d.base_kernel_util_pct = base.kernel_utilization_pct;
  d.test_kernel_util_pct = test.kernel_utilization_pct;
  d.base_gpu_op_util_pct = base.gpu_op_utilization_pct;
  d.test_gpu_op_util_pct = test.gpu_op_utilization_pct;
  for (const RunNamedValue& b : base.idle_ms_per_step) {
    for (const RunNamedValue& t : test.idle_ms_per_step) {
      if (t.name == b.name) d.idle.push_back({b.name, {b.value, NAN, 1}, {t.value, NAN, 1}});
    }
  }
  DiffFindings(base, test, d);
  DiffKernels(base, test, options, d);
  Verdict(d, options);
  for (const RunSummary* run : {&base, &test}) {
    if (run->ranks_in_input > 1) {
      d.notes.push_back(
          fmt::format("{} holds {} ranks: the first is compared", run->path, run->ranks_in_input));
    }
    if (run->steps.size() < 3) {
      d.notes.push_back(
          fmt::format("{} has {} analysed step(s): the step-to-step noise is poorly known",
                      run->path, run->steps.size()));
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
