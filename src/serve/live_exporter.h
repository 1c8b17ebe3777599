// The engine of `gpuwhy serve`: every refresh interval it drains the sampler thread, keeps a
// sliding window of samples, updates the running totals, diagnoses the window (the signal
// rules of `gpuwhy run`) and renders the /metrics and /findings bodies once. Scrapes then
// only copy the last bodies, so scrape cost is flat and no NVML call sits on the request
// path. Memory stays flat: the window is trimmed by time and the sampler's rings are fixed.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "analyze/live_window.h"
#include "collect/job_identity.h"
#include "collect/sampler_thread.h"
#include "diagnose/diagnose.h"
#include "report/prometheus_text.h"
#include "serve/http_endpoint.h"

namespace gpuwhy {

struct LiveExporterOptions {
  DurationNs refresh = 1'000 * kNsPerMs;  // how often the served bodies are rebuilt
  DurationNs window = 60 * kNsPerSec;     // samples kept for idle ratio and findings
  bool per_process = false;
  size_t top_processes = 5;
  // With per_process: where /proc is read to name each process's job (pod, Slurm job,
  // container: collect/job_identity.h); "" names none.
  std::string proc_root = "/";
  std::string version;
  std::string source = "gpuwhy serve";  // report header path of /findings
  DiagnoseOptions diagnose;
};

class LiveExporter {
 public:
  // |sampler| is already started (cli StartLiveSampling); |endpoint| receives every refresh.
  LiveExporter(std::unique_ptr<SamplerThread> sampler, LiveExporterOptions options,
               HttpEndpoint& endpoint);
  ~LiveExporter();
  LiveExporter(const LiveExporter&) = delete;
  LiveExporter& operator=(const LiveExporter&) = delete;

  void Start();  // starts refreshing
  void Stop();   // stops refreshing and the sampler
  // One refresh now (the refresh thread calls this; tests call it directly).
  std::shared_ptr<const PublishedBodies> Refresh();
  const MetricSeriesSet& window() const { return window_; }

 private:
  void Loop();
  // The jobs of the processes in the window, read once per process.
  std::map<int64_t, ProcessJobLabels> ProcessJobs();

  std::unique_ptr<SamplerThread> sampler_;
  LiveExporterOptions options_;
  HttpEndpoint& endpoint_;
  MetricSeriesSet window_;
  LiveTotals totals_;
  JobIdentityCache jobs_;
  int64_t refreshes_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
};

// The labels `serve --per-process` exports for one process's job, at full length (the
// Prometheus renderer bounds them).
ProcessJobLabels JobLabelsOf(const JobIdentity& identity);

}  // namespace gpuwhy
