#include "analyze/profile_summary_analysis.h"
#include "base/percent.h"

#include <algorithm>
#include <array>

namespace gpuwhy {
namespace {

void AddKernels(const ProfileSummary& s, ProfileSummaryAnalysis& a, size_t top_n) {
  std::array<DurationNs, static_cast<size_t>(KernelClass::kOther) + 1> by_class{};
  for (const SummaryKernel& k : s.kernels) {
    KernelClass c = ClassifyKernel(GpuOpKind::kKernel, k.name);
    // DLProf measured tensor-core use per kernel; nsys names are read like trace names.
    bool tc = k.uses_tensor_cores.value_or(UsesTensorCores(k.name));
    ++a.kernel_rows;
    a.instances += k.instances;
    a.kernel_ns += k.total_ns;
    by_class[static_cast<size_t>(c)] += k.total_ns;
    if (tc) a.tensor_core_ns += k.total_ns;
    if (IsTensorCoreEligible(c)) {
      a.tc_eligible_ns += k.total_ns;
      if (!tc) a.tc_eligible_without_tc_ns += k.total_ns;
    }
    a.top.push_back({k.name, k.total_ns, k.instances, 0, c, tc});
  }
  for (size_t c = 0; c < by_class.size(); ++c) {
    if (by_class[c] == 0) continue;
    a.classes.push_back({static_cast<KernelClass>(c), by_class[c],
                         PercentOf(static_cast<double>(by_class[c]), static_cast<double>(a.kernel_ns))});
  }
  std::stable_sort(a.classes.begin(), a.classes.end(),
                   [](const SummaryClassShare& x, const SummaryClassShare& y) {
                     return x.total_ns > y.total_ns;
                   });
  std::stable_sort(
      a.top.begin(), a.top.end(),
      [](const SummaryTopKernel& x, const SummaryTopKernel& y) { return x.total_ns > y.total_ns; });
  if (a.top.size() > top_n) a.top.resize(top_n);
  for (SummaryTopKernel& k : a.top)
    k.pct = PercentOf(static_cast<double>(k.total_ns), static_cast<double>(a.kernel_ns));
}

void EmitMetrics(const ProfileSummary& s, ProfileSummaryAnalysis& a) {
  MetricScope rank = MetricScope::Rank();
  MetricSet& m = a.metrics;
  if (a.kernel_rows > 0) {
    const double total = static_cast<double>(a.kernel_ns);
    m.Add(metric::kSummaryKernelRows, rank, static_cast<double>(a.kernel_rows));
    m.Add(metric::kSummaryInstances, rank, static_cast<double>(a.instances));
    m.Add(metric::kSummaryKernelMs, rank, NsToMs(a.kernel_ns));
    for (const SummaryClassShare& c : a.classes)
      m.Add(metric::kSummaryClassPct, KernelClassName(c.kernel_class), rank, c.pct);
    m.Add(metric::kSummaryTensorCorePct, rank, PercentOf(static_cast<double>(a.tensor_core_ns), total));
    m.Add(metric::kSummaryWithoutTcPct, rank,
          PercentOf(static_cast<double>(a.tc_eligible_without_tc_ns), total));
  }
  if (!s.dlprof) return;
  const DlprofTotals& t = *s.dlprof;
  if (t.iterations >= 0) m.Add(metric::kSummaryIterations, rank, static_cast<double>(t.iterations));
  if (t.wall_ns >= 0) m.Add(metric::kSummaryWallMs, rank, NsToMs(t.wall_ns));
  if (t.wall_ns > 0 && t.kernel_ns >= 0) {
    m.Add(metric::kSummaryGpuBusyPct, rank,
          PercentOf(static_cast<double>(t.kernel_ns), static_cast<double>(t.wall_ns)));
  }
  if (t.kernel_ns >= 0 && t.tc_kernel_ns >= 0) {
    m.Add(metric::kSummaryTensorCorePct, rank,
          PercentOf(static_cast<double>(t.tc_kernel_ns), static_cast<double>(t.kernel_ns)));
  }
}

}  // namespace

ProfileSummaryAnalysis AnalyzeProfileSummary(const ProfileSummary& summary, size_t top_n) {
  ProfileSummaryAnalysis a;
  a.tool = summary.tool;
  AddKernels(summary, a, top_n);
  EmitMetrics(summary, a);
  a.not_applicable.push_back(
      "idle time, steps, launch gaps and overlap: a summary report holds totals, not a timeline "
      "(give the Nsight Systems export or a Kineto trace for them)");
  if (summary.tool == SummaryTool::kDlprofSummary && summary.kernels.empty()) {
    a.not_applicable.push_back(
        "kernel classes: dlprof_summary.csv lists totals only (dlprof_kernel.csv has the kernels)");
  }
  return a;
}

}  // namespace gpuwhy
