// Ingest throughput and peak memory of the Kineto importer on a synthetic trace.
//
//   ingest_bench [--size-mb 1024] [--runs 5] [--gzip] [--scenario healthy] [--trace FILE] [--walk]
//
// Each run imports the trace in a fresh child process, so its peak resident set
// (getrusage of the child) is that run's alone. Prints the median of the runs. --walk also
// runs a minimal simdjson On-Demand walk of the same (plain) file after each import, in its
// own child, and prints import speed / walk speed (issue 20: keep it >= 0.9).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/huge_pages.h"
#include "child_run.h"
#include "ingest/kineto/kineto_importer.h"
#include "simdjson_walk.h"
#include "synth/synth.h"

namespace {

struct Imported {
  uint64_t content_bytes = 0;
  uint64_t events = 0;
};

struct RunResult : Imported, gpuwhy::bench::ChildUsage {};

bool RunOnce(const std::string& path, RunResult& out) {
  Imported imported;
  bool ok = gpuwhy::bench::RunInChild(
      [&path](Imported& r) {
        auto trace = gpuwhy::ImportKinetoFile(path);
        if (!trace.ok()) {
          fmt::print(stderr, "{}\n", trace.status().message());
          return false;
        }
        r = {trace->metadata.content_bytes, trace->gpu_ops.size() + trace->cpu_slices.size()};
        return true;
      },
      imported, out);
  static_cast<Imported&>(out) = imported;
  return ok;
}

bool WalkOnce(const std::string& path, gpuwhy::bench::WalkResult& walked,
              gpuwhy::bench::ChildUsage& usage) {
  return gpuwhy::bench::RunInChild(
      [&path](gpuwhy::bench::WalkResult& r) { return gpuwhy::bench::WalkKinetoJson(path, r); },
      walked, usage);
}

using gpuwhy::bench::Median;

}  // namespace

int main(int argc, char** argv) {
  gpuwhy::KeepFreedMemoryForReuse();  // as gpuwhy's main() does
  int64_t size_mb = 1024;
  int runs = 5;
  bool gzip = false;
  bool walk = false;
  std::string scenario = "healthy";
  std::string trace;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--size-mb")
      size_mb = std::atoll(next().c_str());
    else if (arg == "--runs")
      runs = std::atoi(next().c_str());
    else if (arg == "--gzip")
      gzip = true;
    else if (arg == "--walk")
      walk = true;
    else if (arg == "--scenario")
      scenario = next();
    else if (arg == "--trace")
      trace = next();
    else {
      fmt::print(
          stderr,
          "usage: ingest_bench [--size-mb N] [--runs N] [--gzip] [--scenario S] [--trace FILE] "
          "[--walk]\n");
      return 2;
    }
  }
  if (trace.empty()) {
    trace = (std::filesystem::temp_directory_path() /
             fmt::format("gpuwhy_bench_{}_{}mb.json{}", scenario, size_mb, gzip ? ".gz" : ""))
                .string();
    if (!std::filesystem::exists(trace)) {
      fmt::print(stderr, "generating {} ...\n", trace);
      gpuwhy::SynthOptions options;
      options.scenario = scenario;
      options.size_mb = size_mb;
      auto status = gpuwhy::WriteSyntheticTrace(options, trace);
      if (!status.ok()) {
        fmt::print(stderr, "{}\n", status.message());
        return 2;
      }
    }
  }
  uint64_t file_bytes = std::filesystem::file_size(trace);
  std::vector<double> mbps, cpu_mbps, rss_ratio, seconds;
  std::vector<double> walk_mbps, walk_cpu_mbps, speed_ratio, cpu_speed_ratio;
  RunResult r;
  for (int i = 0; i < runs; ++i) {
    if (!RunOnce(trace, r)) {
      fmt::print(stderr, "run {} failed\n", i);
      return 1;
    }
    seconds.push_back(r.seconds);
    mbps.push_back(r.content_bytes / r.seconds / 1e6);
    cpu_mbps.push_back(r.content_bytes / r.cpu_seconds / 1e6);
    // Peak memory relative to the file on disk (the "1.5x the file size").
    rss_ratio.push_back(r.max_rss_kb * 1024.0 / static_cast<double>(file_bytes));
    fmt::print(
        stderr,
        "run {}: {:.2f} s wall, {:.2f} s CPU, {:.0f} MB/s per CPU second, peak RSS {:.0f} MB\n", i,
        r.seconds, r.cpu_seconds, cpu_mbps.back(), r.max_rss_kb / 1024.0);
    if (!walk) continue;
    gpuwhy::bench::WalkResult walked;
    gpuwhy::bench::ChildUsage w;
    if (!WalkOnce(trace, walked, w)) {
      fmt::print(stderr, "walk {} failed (plain JSON only)\n", i);
      return 1;
    }
    walk_mbps.push_back(walked.bytes / w.seconds / 1e6);
    walk_cpu_mbps.push_back(walked.bytes / w.cpu_seconds / 1e6);
    // Pairwise: this import against the walk right after it, so load changes cancel.
    speed_ratio.push_back(mbps.back() / walk_mbps.back());
    cpu_speed_ratio.push_back(cpu_mbps.back() / walk_cpu_mbps.back());
  }
  fmt::print("trace: {} ({:.1f} MB on disk, {:.1f} MB JSON, {} rows)\n", trace, file_bytes / 1e6,
             r.content_bytes / 1e6, r.events);
  fmt::print(
      "median of {} runs: {:.2f} s wall, {:.0f} MB/s of JSON wall-clock, {:.0f} MB/s per CPU "
      "second "
      "(one thread), peak RSS {:.2f}x file size\n",
      runs, Median(seconds), Median(mbps), Median(cpu_mbps), Median(rss_ratio));
  if (walk) {
    fmt::print(
        "simdjson On-Demand walk, median of {} runs: {:.0f} MB/s wall, {:.0f} MB/s per CPU "
        "second; import / walk speed, median of pairs: {:.2f} wall, {:.2f} per CPU second "
        "(target >= 0.9)\n",
        runs, Median(walk_mbps), Median(walk_cpu_mbps), Median(speed_ratio),
        Median(cpu_speed_ratio));
  }
  return 0;
}
