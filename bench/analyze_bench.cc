// Analysis speed against ingest speed on a synthetic trace (issue 3: all analyses together
// must take less time than the ingest of the same trace).
//
//   analyze_bench [--size-mb 1024] [--runs 3] [--scenario healthy] [--trace FILE]
//
// Imports the trace once (timed), then runs AnalyzeTrace --runs times and prints the
// median and the ratio analysis / ingest (target < 1; exit 1 when missed), followed by a
// per-analysis split.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyze/analysis.h"
#include "base/huge_pages.h"
#include "child_run.h"
#include "ingest/importer.h"
#include "synth/synth.h"

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
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
  auto start = Clock::now();
  auto trace = gpuwhy::ImportTraceFile(trace_path);
  double ingest = SecondsSince(start);
  if (!trace.ok()) {
    fmt::print(stderr, "{}\n", trace.status().message());
    return 2;
  }
  size_t metrics = 0;
  double analysis =
      TimeMedian(runs, [&] { metrics = gpuwhy::AnalyzeTrace(*trace).metrics.all().size(); });
  fmt::print("trace: {} ({:.1f} MB JSON, {} GPU ops, {} CPU slices, {} steps)\n", trace_path,
             trace->metadata.content_bytes / 1e6, trace->gpu_ops.size(), trace->cpu_slices.size(),
             trace->steps.size());
  fmt::print(
      "ingest {:.3f} s; AnalyzeTrace median of {} runs {:.3f} s ({} metrics); "
      "ratio analysis / ingest = {:.3f} (target < 1)\n",
      ingest, runs, analysis, metrics, analysis / ingest);
  fmt::print("per analysis (median of {} runs, % of the AnalyzeTrace median):\n", runs);
  PrintSplit(*trace, runs, analysis);
  return analysis < ingest ? 0 : 1;
}
