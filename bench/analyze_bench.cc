// Analysis speed against ingest speed on a synthetic trace (issue 20: all analyses, the
// diagnosis and the rank summary together take at most half the ingest time).
//
//   analyze_bench [--size-mb 1024] [--runs 3] [--scenario healthy] [--trace FILE]
//
// Imports and analyses the trace --runs times, interleaved, and prints the medians and the
// median ratio analysis / ingest (target <= 0.5; exit 1 when missed), followed by a
// per-analysis split.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyze/analysis.h"
#include "base/huge_pages.h"
#include "child_run.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"
#include "ranks/rank_summary.h"
#include "synth/synth.h"

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds of this process: on a loaded machine they say what the work cost when wall
// time says how long it waited for a core.
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

using gpuwhy::bench::Median;

// Median seconds of |runs| calls of |body|.
double TimeMedian(int runs, const std::function<void()>& body) {
  std::vector<double> seconds;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    body();
    seconds.push_back(SecondsSince(start));
  }
  return Median(seconds);
}

// Each analysis alone, in AnalyzeTrace's order, to show which one dominates. The list is
// the bench's own copy: the total above is what counts.
void PrintSplit(const gpuwhy::Trace& trace, int runs, double total) {
  using namespace gpuwhy;
  DeviceTimelines timelines;
  double build = TimeMedian(runs, [&] { timelines = BuildDeviceTimelines(trace); });
  AnalysisOptions options;
  AnalysisInput input{trace, timelines, options};
  struct Step {
    const char* name;
    std::function<void(MetricSet&)> run;
  };
  std::vector<Step> steps = {
      {"utilization", [&](MetricSet& m) { ComputeUtilization(input, m); }},
      {"temporal", [&](MetricSet& m) { ComputeTemporalBreakdown(input, m); }},
      {"hta_idle_split", [&](MetricSet& m) { ComputeHtaIdleSplit(input, m); }},
      {"steps", [&](MetricSet& m) { ComputeStepBreakdown(input, m); }},
      {"idle_gaps", [&](MetricSet& m) { ComputeIdleGaps(input, m); }},
      {"kernels", [&](MetricSet& m) { ComputeKernelStats(input, m); }},
      {"sm_efficiency",
       [&](MetricSet& m) { ComputeSmEfficiency(input, ComputeUtilization(input, m), m); }},
      {"flops",
       [&](MetricSet& m) {
         ComputeFlops(input, ComputeUtilization(input, m), KernelStatsResult{}, m);
       }},
      {"launch", [&](MetricSet& m) { ComputeLaunchStats(input, m); }},
      {"sync_copies", [&](MetricSet& m) { ComputeSyncCopies(input, m); }},
      {"communication", [&](MetricSet& m) { ComputeCommunication(input, m); }},
      {"memory", [&](MetricSet& m) { ComputeMemoryUsage(input, m); }},
      {"data_quality", [&](MetricSet& m) { ComputeDataQuality(input, m); }},
  };
  fmt::print("  {:<16}{:>9.3f} s {:>6.1f} %\n", "device timelines", build, 100 * build / total);
  for (const Step& step : steps) {
    double seconds = TimeMedian(runs, [&] {
      MetricSet metrics;
      step.run(metrics);
    });
    fmt::print("  {:<16}{:>9.3f} s {:>6.1f} %\n", step.name, seconds, 100 * seconds / total);
  }
}

}  // namespace

int main(int argc, char** argv) {
  gpuwhy::KeepFreedMemoryForReuse();  // as gpuwhy's main() does
  int64_t size_mb = 1024;
  int runs = 3;
  std::string scenario = "healthy";
  std::string trace_path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--size-mb")
      size_mb = std::atoll(next().c_str());
    else if (arg == "--runs")
      runs = std::max(1, std::atoi(next().c_str()));
    else if (arg == "--scenario")
      scenario = next();
    else if (arg == "--trace")
      trace_path = next();
    else {
      fmt::print(stderr,
                 "usage: analyze_bench [--size-mb N] [--runs N] [--scenario S] [--trace FILE]\n");
      return 2;
    }
  }
  if (trace_path.empty()) {
    // Same cache name as ingest_bench, so both benchmarks share one generated file.
    trace_path = (std::filesystem::temp_directory_path() /
                  fmt::format("gpuwhy_bench_{}_{}mb.json", scenario, size_mb))
                     .string();
    if (!std::filesystem::exists(trace_path)) {
      fmt::print(stderr, "generating {} ...\n", trace_path);
      gpuwhy::SynthOptions options;
      options.scenario = scenario;
      options.size_mb = size_mb;
      if (auto status = gpuwhy::WriteSyntheticTrace(options, trace_path); !status.ok()) {
        fmt::print(stderr, "{}\n", status.message());
        return 2;
      }
    }
  }
  // Interleaved: each run imports the trace afresh, then analyses it (every analysis, the
  // diagnosis and the rank summary: what `gpuwhy analyze` does after the import), so load
  // changes on this shared machine fall on both alike.
  std::vector<double> ingests, analyses, ratios, cpu_ingests, cpu_analyses, cpu_ratios;
  size_t metrics = 0;
  std::optional<gpuwhy::Trace> trace;
  for (int run = 0; run < runs; ++run) {
    trace.reset();  // the last run's trace goes before the next import
    auto start = Clock::now();
    double cpu = CpuSeconds();
    gpuwhy::StatusOr<gpuwhy::Trace> imported = gpuwhy::ImportTraceFile(trace_path);
    ingests.push_back(SecondsSince(start));
    cpu_ingests.push_back(CpuSeconds() - cpu);
    if (!imported.ok()) {
      fmt::print(stderr, "{}\n", imported.status().message());
      return 2;
    }
    trace = std::move(*imported);
    start = Clock::now();
    cpu = CpuSeconds();
    gpuwhy::TraceAnalysis analysis = gpuwhy::AnalyzeTrace(*trace);
    gpuwhy::Diagnosis diagnosis = gpuwhy::Diagnose(*trace, analysis);
    gpuwhy::RankSummary summary = gpuwhy::SummarizeRank(*trace, analysis);
    analyses.push_back(SecondsSince(start));
    cpu_analyses.push_back(CpuSeconds() - cpu);
    ratios.push_back(analyses.back() / ingests.back());
    cpu_ratios.push_back(cpu_analyses.back() / cpu_ingests.back());
    metrics = analysis.metrics.all().size() + diagnosis.findings.size() + summary.steps.size();
  }
  double analysis = Median(analyses);
  double ratio = Median(ratios);
  double cpu_ratio = Median(cpu_ratios);
  fmt::print("trace: {} ({:.1f} MB JSON, {} GPU ops, {} CPU slices, {} steps)\n", trace_path,
             trace->metadata.content_bytes / 1e6, trace->gpu_ops.size(), trace->cpu_slices.size(),
             trace->steps.size());
  fmt::print(
      "median of {} interleaved runs: ingest {:.3f} s ({:.3f} CPU s), analysis + diagnosis + "
      "summary {:.3f} s ({:.3f} CPU s, {} outputs); ratio analysis / ingest (median of pairs) "
      "= {:.3f} wall, {:.3f} CPU (target <= 0.5)\n",
      runs, Median(ingests), Median(cpu_ingests), analysis, Median(cpu_analyses), metrics, ratio,
      cpu_ratio);
  fmt::print("per analysis (median of {} runs, % of the analysis median):\n", runs);
  PrintSplit(*trace, runs, analysis);
  return cpu_ratio <= 0.5 ? 0 : 1;
}
