// Sampler overhead: the sampler thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) over its wall
// time, in % of one core, at 10 Hz and 100 Hz, sampling this machine's procfs/sysfs (with this
// process as the job) and, when built with the tests, the fake NVML with 8 scripted GPUs.
// Usage: sampler_bench [--seconds S] [--runs N] [--no-nvml]
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "collect/nvml_sampler.h"
#include "collect/procfs_sampler.h"
#include "collect/sampler_thread.h"

namespace {

using namespace gpuwhy;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// 8 GPUs with every metric the fake offers, so the NVML path does its full work per tick.
std::string WriteFakeScript() {
  std::string dir = (std::filesystem::temp_directory_path() / "gpuwhy_bench_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  std::string path = dir + "/script.txt";
  std::ofstream out(path);
  out << "devices 8\nrecord_size 24\n";
  for (int d = 0; d < 8; ++d) {
    out << "static " << d << " smmax=1980 memmax=2619 genmax=5 widthmax=16 total=81559 slow=90 "
        << "plimit=700 persistence=1\n";
    out << "tick " << d << " util=90 memutil=40 used=40000 sm=1980 mem=2619 throttle=0x0 "
        << "power=600 temp=60 gen=5 width=16 pids=1000:40000,1001:100 tx=1000 rx=1000\n";
  }
  return path;
}

double MeasureOnce(int hz, double seconds, bool nvml) {
  std::vector<std::unique_ptr<Sampler>> samplers;
  samplers.push_back(std::make_unique<ProcfsSampler>("/", getpid()));
#ifdef FAKE_NVML_PATH
  if (nvml) samplers.push_back(std::make_unique<NvmlSampler>(FAKE_NVML_PATH));
#else
  (void)nvml;
#endif
  SamplerThread thread(std::move(samplers), kNsPerSec / hz);
  thread.Start();
  MetricSeriesSet sink;
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    thread.store().DrainInto(sink);  // as `gpuwhy run` does
  }
  thread.Stop();
  return thread.cpu_pct();
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  int runs = 3;
  bool nvml = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = std::atof(argv[++i]);
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--no-nvml")) nvml = false;
  }
#ifdef FAKE_NVML_PATH
  if (nvml) ::setenv("FAKE_NVML_SCRIPT", WriteFakeScript().c_str(), 1);
  const char* with = nvml ? "procfs + fake NVML (8 GPUs)" : "procfs";
#else
  nvml = false;
  const char* with = "procfs (fake NVML not built: configure with tests)";
#endif
  std::printf("sampler overhead, %s, %d run(s) of %.0f s, median:\n", with, runs, seconds);
  for (int hz : {10, 100}) {
    std::vector<double> pct;
    for (int r = 0; r < runs; ++r) pct.push_back(MeasureOnce(hz, seconds, nvml));
    std::printf("  %3d Hz: %.3f%% of one core (runs:", hz, Median(pct));
    for (double p : pct) std::printf(" %.3f", p);
    std::printf(")\n");
  }
  return 0;
}
