// Import speed of the Nsight Systems SQLite importer on a large synthetic export.
//
//   nsys_ingest_bench [--steps 600] [--scenario launch-bound] [--runs 5] [--trace FILE.sqlite]
//
// Writes the export once with `synth --format nsys-sqlite` (unless --trace), then imports it
// in a fresh child process per run. Prints each run and the median GPU activity rows
// (kernels + memcpy + memset + synchronization) per second, wall and CPU time. Target:
// >= 2 M GPU activity rows per second.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/huge_pages.h"
#include "child_run.h"
#include "ingest/nsys/nsys_importer.h"
#include "synth/synth.h"

namespace {

struct Imported {
  uint64_t gpu_rows = 0;
  uint64_t all_rows = 0;
  uint64_t gpu_ops = 0;  // rows and column bytes of the two big tables
  uint64_t gpu_op_bytes = 0;
  uint64_t cpu_slices = 0;
  uint64_t cpu_slice_bytes = 0;
};

struct RunResult : Imported, gpuwhy::bench::ChildUsage {};

bool RunOnce(const std::string& path, RunResult& out) {
  Imported imported;
  bool ok = gpuwhy::bench::RunInChild(
      [&path](Imported& r) {
        auto traces = gpuwhy::ImportNsysSqlite(path);
        if (!traces.ok()) {
          fmt::print(stderr, "{}\n", traces.status().message());
          return false;
        }
        for (const gpuwhy::Trace& t : *traces) {
          r.gpu_rows += t.gpu_ops.size() + t.gpu_syncs.size();
          r.all_rows +=
              t.gpu_ops.size() + t.gpu_syncs.size() + t.cpu_slices.size() + t.memory_events.size();
          r.gpu_ops += t.gpu_ops.size();
          r.gpu_op_bytes += t.gpu_ops.ColumnBytes();
          r.cpu_slices += t.cpu_slices.size();
          r.cpu_slice_bytes += t.cpu_slices.ColumnBytes();
        }
        return true;
      },
      imported, out);
  static_cast<Imported&>(out) = imported;
  return ok;
}

using gpuwhy::bench::Median;

}  // namespace

int main(int argc, char** argv) {
  gpuwhy::KeepFreedMemoryForReuse();  // as gpuwhy's main() does
  int steps = 600;
  int runs = 5;
  std::string scenario = "launch-bound";
  std::string trace;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--steps")
      steps = std::atoi(next().c_str());
    else if (arg == "--runs")
      runs = std::atoi(next().c_str());
    else if (arg == "--scenario")
      scenario = next();
    else if (arg == "--trace")
      trace = next();
    else {
      fmt::print(stderr,
                 "usage: nsys_ingest_bench [--steps N] [--scenario S] [--runs N] [--trace FILE]\n");
      return 2;
    }
  }
  bool generated = trace.empty();
  if (generated) {
    trace = (std::filesystem::temp_directory_path() /
             fmt::format("gpuwhy_nsys_bench_{}.sqlite", getpid()))
                .string();
    gpuwhy::SynthOptions options;
    options.scenario = scenario;
    options.steps = steps;
    options.format = gpuwhy::SynthFormat::kNsysSqlite;
    auto start = std::chrono::steady_clock::now();
    if (gpuwhy::Status s = gpuwhy::WriteSyntheticTrace(options, trace); !s.ok()) {
      fmt::print(stderr, "synth: {}\n", s.message());
      return 1;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("wrote {} ({:.0f} MB, {} steps of {}) in {:.1f} s\n", trace,
               std::filesystem::file_size(trace) / 1e6, steps, scenario, seconds);
  }
  std::vector<double> rates, cpu_rates, rss;
  RunResult r;
  for (int run = 0; run < runs; ++run) {
    if (!RunOnce(trace, r)) {
      fmt::print(stderr, "run {} failed\n", run + 1);
      return 1;
    }
    rates.push_back(r.gpu_rows / r.seconds);
    cpu_rates.push_back(r.gpu_rows / r.cpu_seconds);
    rss.push_back(r.max_rss_kb / 1024.0);
    fmt::print(
        "run {}: {} GPU activity rows ({} rows in all) in {:.3f} s wall, {:.3f} s CPU: "
        "{:.2f} M GPU rows/s wall, {:.2f} M/s per CPU s, peak RSS {:.0f} MB\n",
        run + 1, r.gpu_rows, r.all_rows, r.seconds, r.cpu_seconds, rates.back() / 1e6,
        cpu_rates.back() / 1e6, rss.back());
  }
  fmt::print(
      "median of {}: {:.2f} M GPU activity rows/s wall, {:.2f} M/s per CPU s, peak RSS {:.0f} MB\n",
      runs, Median(rates) / 1e6, Median(cpu_rates) / 1e6, Median(rss));
  auto per_row = [](uint64_t bytes, uint64_t rows) {
    return rows > 0 ? static_cast<double>(bytes) / static_cast<double>(rows) : 0.0;
  };
  fmt::print(
      "peak RSS / file: {:.2f}; model columns: {:.1f} bytes per GPU op, {:.1f} per CPU slice\n",
      Median(rss) * 1024 * 1024 / static_cast<double>(std::filesystem::file_size(trace)),
      per_row(r.gpu_op_bytes, r.gpu_ops), per_row(r.cpu_slice_bytes, r.cpu_slices));
  if (generated) std::filesystem::remove(trace);
  return 0;
}
