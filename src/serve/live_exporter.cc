#include "serve/live_exporter.h"

#include <chrono>

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

}  // namespace

LiveExporter::LiveExporter(std::unique_ptr<SamplerThread> sampler, LiveExporterOptions options,
                           HttpEndpoint& endpoint)
    : sampler_(std::move(sampler)), options_(std::move(options)), endpoint_(endpoint) {
  window_.source = "live";
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
  LiveExport e;
  e.window = &window_;
  e.totals = totals_.totals();
  e.idle_ratio = IdleRatioByGpu(window_);
  e.findings = &live;
  e.per_process = options_.per_process;
  e.top_processes = options_.top_processes;
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
