#include "synth/synth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "base/file_input.h"
#include "base/output_sink.h"
#include "synth/inference_step.h"
#include "synth/kineto_writer.h"
#include "synth/nsys_writer.h"
#include "synth/scenarios.h"
#include "synth/timeline.h"
#include "synth/training_step.h"
#include "synth/truth.h"

namespace gpuwhy {
namespace {

// Real PyTorch 2.x traces put ts relative to a whole-second base, with ts values of
// ~1e12 µs; we mimic both so importers see realistic magnitudes.
constexpr TimeNs kBaseTimeNs = 1751410836000000000;
constexpr TimeNs kTraceStartNs = 1428625731456483;
constexpr int kMaxSteps = 10'000'000;
constexpr int kMaxRanks = 4096;
constexpr int64_t kMaxSizeMb = 1 << 20;

// synth --slow-rank: how one rank is tied to the others.
struct Coupling {
  CollectiveRendezvous* rendezvous = nullptr;
  TimeNs clock_offset = 0;   // this rank's clock reads true time + this
  double compute_scale = 1;  // > 1 on the slow rank
};

struct RankSetup {
  int rank = 0;
  int world_size = 1;
  int steps = 0;
  uint64_t seed = 0;
  std::string trace_name;
  std::string file_name;
  SynthFormat format = SynthFormat::kKineto;
  std::string output_path;   // the SQLite file, for SynthFormat::kNsysSqlite
  bool gpu_metrics = false;  // ... with GPU_METRICS
};

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// traceName names the JSON document, so a .gz file holds the same bytes as a plain one.
std::string TraceName(const std::string& path) {
  std::string name = BaseName(path);
  if (HasGzipSuffix(name)) name.resize(name.size() - 3);
  return name;
}

void WriteMetadata(EventWriter& w, int pid, int main_tid, int autograd_tid, int device,
                   bool distributed, TimeNs ts) {
  w.Metadata("process_name", pid, 0, ts, "name", "\"python3\"");
  w.Metadata("process_labels", pid, 0, ts, "labels", "\"CPU\"");
  w.Metadata("process_sort_index", pid, 0, ts, "sort_index", fmt::format("{}", pid));
  w.Metadata("process_name", device, 0, ts, "name", "\"python3\"");
  w.Metadata("process_labels", device, 0, ts, "labels", fmt::format("\"GPU {}\"", device));
  w.Metadata("process_sort_index", device, 0, ts, "sort_index",
             fmt::format("{}", 5000000 + device));
  std::vector<int> streams = {kComputeStream};
  if (distributed) streams.push_back(kCommStream);
  for (int stream : streams) {
    w.Metadata("thread_name", device, stream, ts, "name", fmt::format("\"stream {} \"", stream));
    w.Metadata("thread_sort_index", device, stream, ts, "sort_index", fmt::format("{}", stream));
  }
  w.Metadata("thread_name", pid, main_tid, ts, "name",
             fmt::format("\"thread {} (python3)\"", main_tid));
  w.Metadata("thread_sort_index", pid, main_tid, ts, "sort_index", fmt::format("{}", main_tid));
  w.Metadata("thread_name", pid, autograd_tid, ts, "name",
             fmt::format("\"thread {} (pt_autograd_0)\"", autograd_tid));
  w.Metadata("thread_sort_index", pid, autograd_tid, ts, "sort_index",
             fmt::format("{}", autograd_tid));
}

// Writes one rank's trace into `sink` and returns its counts and per-step means.
StatusOr<RankTruth> WriteRank(const ScenarioInfo& scenario, const RankSetup& setup,
                              OutputSink* sink, const Coupling* coupling = nullptr) {
  const int device = setup.rank % 8;
  const int pid = 25286 + 17 * setup.rank;
  const int main_tid = pid;
  const int autograd_tid = pid + 163;
  const bool distributed = setup.world_size > 1;
  // Ranks start a few µs apart, as unsynchronized host clocks do.
  const TimeNs start =
      kTraceStartNs + (coupling != nullptr ? coupling->clock_offset : 3217 * setup.rank);

  // One simulated run, written through whichever format was asked for.
  std::unique_ptr<EventWriter> format_writer;
  if (setup.format == SynthFormat::kNsysSqlite) {
    if (setup.output_path.empty()) {
      return InvalidArgument("--format nsys-sqlite cannot be combined with --slow-rank yet");
    }
    format_writer = std::make_unique<NsysWriter>(
        setup.output_path,
        setup.gpu_metrics ? NsysWriter::GpuMetrics::kOn : NsysWriter::GpuMetrics::kOff);
  } else {
    format_writer = std::make_unique<KinetoWriter>(sink);
  }
  EventWriter& writer = *format_writer;
  DocumentInfo info;
  info.pid = pid;
  info.device = device;
  info.num_devices = distributed ? std::min(setup.world_size, 8) : 1;
  info.distributed = distributed;
  info.rank = setup.rank;
  info.world_size = setup.world_size;
  info.base_time_ns = kBaseTimeNs;
  info.trace_name = setup.trace_name;
  info.args_113 = scenario.recipe.args_113;
  writer.Begin(info);
  WriteMetadata(writer, pid, main_tid, autograd_tid, device, distributed, start);

  Timeline timeline(&writer, setup.seed ^ (0x5851F42D4C957F2Dull * (setup.rank + 1)), pid, main_tid,
                    device, start + 350 * kNsPerUs);
  if (coupling != nullptr) {
    timeline.CoupleRanks(coupling->rendezvous, setup.rank, coupling->clock_offset);
    timeline.SetComputeScale(coupling->compute_scale);
  }
  const Recipe& recipe = scenario.recipe;
  timeline.SetStepAnnotations(recipe.profiler_steps);
  TrainingStep step(recipe, main_tid, autograd_tid, setup.world_size);
  InferenceStep inference(recipe, main_tid);
  const bool engine =
      recipe.workload == Workload::kDecodeGraph || recipe.workload == Workload::kGraphCapture;
  MeasuredStep sum;
  int steady = 0;
  for (int i = 0; i < setup.steps; ++i) {
    const bool last = i + 1 == setup.steps;
    StepStats stats =
        engine ? inference.Run(timeline, i + 1, last) : step.Run(timeline, i + 1, last);
    RETURN_IF_ERROR(writer.status());
    const DurationNs span = stats.end - stats.start;
    if (i == 0) {
      sum.first_step_ns = span;
      sum.warmup_ns = stats.end - start;
    }
    if (last) {
      sum.last_step_ns = span;
      sum.capture_ns = stats.end - start;
    }
    sum.one_off_ns += stats.one_off_ns;
    sum.one_off_steps += stats.one_off_ns > 0 ? 1 : 0;
    sum.captured_launches = std::max(sum.captured_launches, stats.captured_launches);
    sum.graph_kernels = std::max(sum.graph_kernels, stats.graph_kernels);
    // The truth's per-step means are over the steady state: without the warm-up step, the
    // flushed last step and steps holding injected one-off work, where the scenario has them
    // (and while another step is left).
    bool one_off = (i == 0 && recipe.warmup.enabled()) || (last && recipe.last_step_flush_ns > 0) ||
                   stats.one_off_ns > 0;
    if (one_off && setup.steps > 1) continue;
    ++steady;
    sum.step_ns += span;
    sum.gpu_busy_ns += stats.gpu_busy_ns;
    sum.sync_wait_ns += stats.sync_wait_ns;
    sum.idle_after_sync_ns += stats.idle_after_sync_ns;
    sum.gemm_ns += stats.gemm_ns;
    sum.memory_bound_ns += stats.memory_bound_ns;
    sum.softmax_ns += stats.softmax_ns;
    sum.kernel_ns += stats.kernel_ns;
  }
  if (recipe.teardown.calls > 0 && !recipe.teardown.in_last_step) {
    sum.one_off_ns += WriteTeardownTail(timeline, recipe.teardown);
    sum.capture_ns = timeline.now() - start;
  }
  RETURN_IF_ERROR(writer.Finish(start, timeline.now() + 120 * kNsPerUs));

  RankTruth truth;
  truth.rank = setup.rank;
  truth.file = setup.file_name;
  for (int c = 0; c < kNumEventCats; ++c) truth.counts[c] = writer.count(static_cast<EventCat>(c));
  const int64_t n = std::max(steady, 1);
  truth.mean = sum;
  truth.mean.steady_steps = steady;
  truth.mean.step_ns = sum.step_ns / n;
  truth.mean.gpu_busy_ns = sum.gpu_busy_ns / n;
  truth.mean.sync_wait_ns = sum.sync_wait_ns / n;
  truth.mean.idle_after_sync_ns = sum.idle_after_sync_ns / n;
  truth.mean.gemm_ns = sum.gemm_ns / n;
  truth.mean.memory_bound_ns = sum.memory_bound_ns / n;
  truth.mean.softmax_ns = sum.softmax_ns / n;
  truth.mean.kernel_ns = sum.kernel_ns / n;
  truth.mean.kernels = truth.counts[static_cast<int>(EventCat::kKernel)] / std::max(setup.steps, 1);
  return truth;
}

// Steps that make one file about `size_mb` MB: measures the JSON of 1 and 3 steps.
StatusOr<int> StepsForSize(const ScenarioInfo& scenario, const RankSetup& base, int64_t size_mb) {
  uint64_t bytes[2];
  int probe_steps[2] = {1, 3};
  for (int i = 0; i < 2; ++i) {
    RankSetup probe = base;
    probe.steps = probe_steps[i];
    probe.format = SynthFormat::kKineto;  // sized as JSON
    std::unique_ptr<OutputSink> sink = CountingSink();
    ASSIGN_OR_RETURN(RankTruth ignored, WriteRank(scenario, probe, sink.get()));
    (void)ignored;
    bytes[i] = sink->bytes_written();
  }
  double per_step = static_cast<double>(bytes[1] - bytes[0]) / 2.0;
  double fixed = static_cast<double>(bytes[0]) - per_step;
  double target = static_cast<double>(size_mb) * 1024.0 * 1024.0;
  double steps = std::round((target - fixed) / per_step);
  return static_cast<int>(std::clamp(steps, 1.0, static_cast<double>(kMaxSteps)));
}

Status ValidateOptions(const SynthOptions& options, const std::string& out_path) {
  if (FindScenario(options.scenario) == nullptr) {
    std::vector<std::string> names = ScenarioNames();
    return InvalidArgument("unknown scenario '{}'; valid scenarios: {}", options.scenario,
                           fmt::join(names, ", "));
  }
  if (options.steps < 1 || options.steps > kMaxSteps) {
    return InvalidArgument("steps must be in [1, {}], got {}", kMaxSteps, options.steps);
  }
  if (options.ranks < 1 || options.ranks > kMaxRanks) {
    return InvalidArgument("ranks must be in [1, {}], got {}", kMaxRanks, options.ranks);
  }
  if (options.size_mb < 0 || options.size_mb > kMaxSizeMb) {
    return InvalidArgument("size-mb must be in [0, {}], got {}", kMaxSizeMb, options.size_mb);
  }
  if (out_path.empty()) return InvalidArgument("output path is empty");
  if (options.slow_rank >= 0) {
    if (options.ranks < 2 || options.slow_rank >= options.ranks) {
      return InvalidArgument("slow-rank must name one of at least 2 ranks (0..{}), got {}",
                             options.ranks - 1, options.slow_rank);
    }
    if (!(options.slow_by_pct > 0 && options.slow_by_pct <= 1000)) {
      return InvalidArgument("slow-by must be in (0, 1000] percent, got {}", options.slow_by_pct);
    }
  }
  return Status::Ok();
}

// A clock offset per rank, several ms apart, as hosts without a shared clock have.
TimeNs ClockOffset(int rank) { return 3217 * rank + (rank % 4) * 1'234'567; }

// Every rank on its own thread, meeting at each collective (synth --slow-rank).
Status WriteCoupledRanks(const SynthOptions& options, const ScenarioInfo& scenario,
                         const RankSetup& base, const std::vector<std::string>& paths,
                         GroundTruth& truth, uint64_t& json_bytes) {
  CollectiveRendezvous rendezvous(options.ranks, options.slow_rank);
  std::vector<Status> statuses(options.ranks);
  std::vector<RankTruth> truths(options.ranks);
  std::vector<uint64_t> bytes(options.ranks, 0);
  std::vector<std::thread> threads;
  for (int r = 0; r < options.ranks; ++r) {
    threads.emplace_back([&, r] {
      RankSetup setup = base;
      setup.rank = r;
      setup.trace_name = TraceName(paths[r]);
      setup.file_name = BaseName(paths[r]);
      Coupling coupling{&rendezvous, ClockOffset(r),
                        r == options.slow_rank ? 1 + options.slow_by_pct / 100 : 1};
      StatusOr<std::unique_ptr<OutputSink>> sink = OpenOutputSink(paths[r]);
      StatusOr<RankTruth> written =
          sink.ok() ? WriteRank(scenario, setup, sink->get(), &coupling) : sink.status();
      Status closed = written.ok() ? (*sink)->Close() : written.status();
      if (!closed.ok()) {
        statuses[r] = closed;
        rendezvous.Leave();
        return;
      }
      bytes[r] = (*sink)->bytes_written();
      truths[r] = std::move(*written);
      rendezvous.Leave();
    });
  }
  for (std::thread& t : threads) t.join();
  for (const Status& s : statuses) RETURN_IF_ERROR(s);
  for (int r = 0; r < options.ranks; ++r) {
    json_bytes += bytes[r];
    truth.ranks.push_back(std::move(truths[r]));
    truth.clock_offsets.push_back(ClockOffset(r));
  }
  truth.slow_rank = options.slow_rank;
  truth.slow_by_pct = options.slow_by_pct;
  truth.lateness = rendezvous.truth();
  return Status::Ok();
}

}  // namespace

std::vector<std::string> SyntheticTracePaths(const SynthOptions& options,
                                             const std::string& out_path) {
  if (options.ranks <= 1) return {out_path};
  std::string stem = out_path;
  std::string gz;
  std::string json;
  if (HasGzipSuffix(stem)) {
    gz = ".gz";
    stem.resize(stem.size() - 3);
  }
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) {
    json = ".json";
    stem.resize(stem.size() - 5);
  } else if (stem.size() > 7 && stem.compare(stem.size() - 7, 7, ".sqlite") == 0) {
    json = ".sqlite";
    stem.resize(stem.size() - 7);
  }
  std::vector<std::string> paths;
  for (int r = 0; r < options.ranks; ++r) {
    paths.push_back(fmt::format("{}.rank{}{}{}", stem, r, json, gz));
  }
  return paths;
}

Status WriteSyntheticTrace(const SynthOptions& options, const std::string& out_path,
                           SynthSummary* summary) {
  RETURN_IF_ERROR(ValidateOptions(options, out_path));
  // The catalog's scenario with the options' shape overrides; it outlives every rank's writer.
  ScenarioInfo scenario = *FindScenario(options.scenario);
  RETURN_IF_ERROR(ApplyRecipeParams(options.params, scenario.recipe));
  std::vector<std::string> paths = SyntheticTracePaths(options, out_path);

  RankSetup setup;
  setup.world_size = std::max(options.ranks, scenario.recipe.min_world_size);
  setup.seed = options.seed;
  setup.steps = options.steps;
  setup.format = options.format;
  setup.gpu_metrics = options.gpu_metrics;
  setup.trace_name = TraceName(paths[0]);
  if (options.size_mb > 0) {
    ASSIGN_OR_RETURN(setup.steps, StepsForSize(scenario, setup, options.size_mb));
  }

  GroundTruth truth;
  truth.scenario = &scenario;
  truth.seed = options.seed;
  truth.steps = setup.steps;
  truth.world_size = setup.world_size;
  truth.params = options.params;
  uint64_t json_bytes = 0;
  if (options.slow_rank >= 0)
    RETURN_IF_ERROR(WriteCoupledRanks(options, scenario, setup, paths, truth, json_bytes));
  for (int r = 0; r < options.ranks && options.slow_rank < 0; ++r) {
    setup.rank = r;
    setup.trace_name = TraceName(paths[r]);
    setup.file_name = BaseName(paths[r]);
    setup.output_path = paths[r];
    // The SQLite writer owns its file; the sink then only counts (nothing).
    ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink,
                     options.format == SynthFormat::kNsysSqlite
                         ? StatusOr<std::unique_ptr<OutputSink>>(CountingSink())
                         : OpenOutputSink(paths[r]));
    ASSIGN_OR_RETURN(RankTruth rank_truth, WriteRank(scenario, setup, sink.get()));
    RETURN_IF_ERROR(sink->Close());
    json_bytes += sink->bytes_written();
    truth.ranks.push_back(std::move(rank_truth));
  }

  std::string truth_path = out_path + ".truth.json";
  RETURN_IF_ERROR(WriteWholeFile(truth_path, RenderTruthJson(truth)));
  if (summary != nullptr) {
    summary->trace_paths = paths;
    summary->truth_path = truth_path;
    summary->steps = setup.steps;
    summary->json_bytes = json_bytes;
  }
  return Status::Ok();
}

}  // namespace gpuwhy
