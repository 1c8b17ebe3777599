// `gpuwhy watch`: a live view of GPU and host metrics with hints. On a terminal the screen is
// redrawn every second; otherwise one line per sample (for pipes and logs).
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/live_metrics.h"
#include "report/watch_view.h"

namespace gpuwhy {
namespace {

constexpr size_t kHintWindow = 600;  // samples kept for hints (60 s at 10 Hz)

// The screen's job section: the GPU processes' jobs (cli/live_metrics.h), when any is named.
std::string RenderJobs(const std::vector<std::string>& lines) {
  if (lines.empty()) return {};
  std::string out = "\njobs\n";
  for (const std::string& line : lines) out += "  " + line + "\n";
  return out;
}

}  // namespace

void AddWatchCommand(CLI::App& app, WatchOptions& options) {
  CLI::App* command = app.add_subcommand(
      "watch", "Live GPU and host metrics with hints (one line per sample when not a terminal)");
  command->add_option("--interval", options.interval_ms, "Sampling interval in ms (10-1000)")
      ->check(CLI::Range(10, 1000));
  command->add_option("--count", options.count, "Stop after N samples (lines)");
  command->add_option("--pid", options.pid, "Show this process tree's busiest threads");
}

int RunWatchCommand(const WatchOptions& options, const CliContext& context) {
  StopOnInterrupt interrupt;
  LiveOptions live;
  live.interval_ms = options.interval_ms;
  live.target = options.pid;
  std::unique_ptr<SamplerThread> sampler = StartLiveSampling(live);
  const bool screen = options.screen && isatty(STDOUT_FILENO);
  for (const std::string& note : sampler->notes()) PrintError(context, note);
  int64_t shown = 0;
  int64_t last_tick = 0;
  JobIdentityCache jobs(live.proc_root);
  std::set<std::string> said;  // line mode: each process's job is said once
  while (!StopOnInterrupt::requested() && (options.count <= 0 || shown < options.count)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(screen ? 1000 : 20));
    int64_t tick = sampler->ticks();
    if (tick == last_tick || tick < 2) continue;  // rates need two samples
    last_tick = tick;
    if (screen) {
      MetricSeriesSet window = sampler->store().Latest(kHintWindow);
      ReadProcessJobs(window, jobs, GoneProcesses::kForget);
      context.out << "\x1b[H\x1b[2J" << RenderWatchScreen(window, 100)
                  << RenderJobs(DescribeProcessJobs(window, jobs, options.pid)) << std::flush;
    } else {
      MetricSeriesSet latest = sampler->store().Latest(1);
      ReadProcessJobs(latest, jobs, GoneProcesses::kForget);
      for (const std::string& line : DescribeProcessJobs(latest, jobs, options.pid)) {
        if (said.insert(line).second) context.err << "gpuwhy watch: " << line << '\n';
      }
      context.out << RenderWatchLine(latest) << '\n' << std::flush;
    }
    ++shown;
  }
  sampler->Stop();
  return kExitOk;
}

}  // namespace gpuwhy
