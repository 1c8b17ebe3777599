#include "serve/live_exporter.h"

#include <chrono>

#include <fmt/format.h>

#include "diagnose/diagnose_signals.h"
#include "report/prometheus_text.h"
#include "report/report.h"

namespace gpuwhy {
namespace {

bool NvmlAvailable(const MetricSeriesSet& window) {
  for (const SeriesDevice& d : window.devices) {
    if (d.index >= 0 && !d.uuid.empty()) return true;
  }
  return false;
}

int64_t Dropped(const MetricSeriesSet& window) {
  return window.problems.Get(DataProblem::kRingOverflow);
}

// The series that --per-process exports by pid.
constexpr std::string_view kProcessSeries[] = {"gpu.process_mem_mib", "gpu.process_sm_pct",
                                               "proc.cpu_pct"};

}  // namespace

ProcessJobLabels JobLabelsOf(const JobIdentity& identity) {
  ProcessJobLabels labels;
  labels.job = identity.JobName();
  labels.pod = identity.pod_name;
  labels.pod_uid = identity.pod_uid;
  labels.pod_namespace = identity.pod_namespace;
  labels.slurm_job = identity.slurm_job;
  labels.slurm_step = identity.slurm_step;
  if (!identity.container_id.empty()) {
    // The kubelet's containerID form ("containerd://ID"), cut to docker's short id.
    labels.container =
        (identity.container_runtime.empty() ? "" : identity.container_runtime + "://") +
        identity.container_id.substr(0, 12);
  }
  return labels;
}

LiveExporter::LiveExporter(std::unique_ptr<SamplerThread> sampler, LiveExporterOptions options,
                           HttpEndpoint& endpoint)
    : sampler_(std::move(sampler)),
      options_(std::move(options)),
      endpoint_(endpoint),
      jobs_(options_.proc_root) {
  window_.source = "live";
}

std::map<int64_t, ProcessJobLabels> LiveExporter::ProcessJobs() {
  std::map<int64_t, ProcessJobLabels> out;
  if (!options_.per_process || options_.proc_root.empty()) return out;
  std::vector<pid_t> pids;
  for (std::string_view metric : kProcessSeries) {
    for (const MetricSeries* s : window_.FindAll(metric)) {
      if (pid_t pid = PidOfEntity(s->key.entity); pid > 0) pids.push_back(pid);
    }
  }
  jobs_.Update(pids);
  for (const auto& [pid, identity] : jobs_.known()) {
    if (!identity.empty()) out.emplace(pid, JobLabelsOf(identity));
  }
  return out;
}

LiveExporter::~LiveExporter() { Stop(); }

void LiveExporter::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void LiveExporter::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (sampler_ != nullptr) sampler_->Stop();
}

void LiveExporter::Loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    endpoint_.Publish(Refresh());
    lock.lock();
    wake_.wait_for(lock, std::chrono::nanoseconds(options_.refresh), [this] { return stop_; });
  }
}

std::shared_ptr<const PublishedBodies> LiveExporter::Refresh() {
  const auto started = std::chrono::steady_clock::now();
  MetricSeriesSet fresh;
  sampler_->DrainInto(fresh);
  const TimeNs now = WallClockNs();
  totals_.Add(fresh);
  // The sampler's counters (ring overflows) are cumulative: keep the latest, not a sum.
  window_.problems = fresh.problems;
  SlideWindow(window_, fresh, now - options_.window);
  ++refreshes_;

  Diagnosis live = DiagnoseSignals(window_, options_.diagnose);
  for (const std::string& note : window_.notes) live.notes.push_back("skipped: " + note);
  if (options_.per_process && !options_.proc_root.empty() &&
      HasPodResourcesSocket(options_.proc_root)) {
    // Detected, not queried: the pod-resources API is gRPC (docs/job-identity.md).
    live.notes.push_back(fmt::format(
        "the kubelet's pod-resources socket is present (/{}): gpuwhy names pods by the UID in "
        "their cgroup path and by the downward-API environment, and does not query the socket",
        kPodResourcesSocket));
  }
  LiveExport e;
  e.window = &window_;
  e.totals = totals_.totals();
  e.idle_ratio = IdleRatioByGpu(window_);
  e.findings = &live;
  e.per_process = options_.per_process;
  e.top_processes = options_.top_processes;
  e.process_jobs = ProcessJobs();
  e.self.version = options_.version;
  e.self.samples = sampler_->ticks();
  e.self.last_sample_unix_seconds = static_cast<double>(now) * 1e-9;
  e.self.sampler_cpu_ratio = sampler_->cpu_pct() / 100.0;
  e.self.dropped_samples = Dropped(window_);
  e.self.nvml_available = NvmlAvailable(window_);
  e.self.last_refresh_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  auto bodies = std::make_shared<PublishedBodies>();
  bodies->metrics = RenderPrometheusText(e);
  RankReport report;
  report.header.path = options_.source;
  report.diagnosis = std::move(live);
  bodies->findings_json = RenderReportJson(std::span<const RankReport>(&report, 1), {});
  bodies->ready = true;
  return bodies;
}

}  // namespace gpuwhy
