#include "synth/scenarios.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

#include "synth/kernels.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace {

Recipe InputBound() {
  Recipe r;
  // ~40% of a ~49 ms step: a single-process DataLoader decoding on the main thread.
  r.dataloader_ns = 20 * kNsPerMs;
  return r;
}

Recipe LaunchBound() {
  Recipe r;
  r.layers = 2;
  r.unfused_optimizer_params = 1000;  // 2000 kernels of 2-5 µs per step
  r.launch_min_ns = 6 * kNsPerUs;
  r.launch_max_ns = 8 * kNsPerUs;
  return r;
}

Recipe SyncHeavy() {
  Recipe r;
  r.mid_step_syncs = 12;  // one per layer
  r.host_work_after_sync_ns = 600 * kNsPerUs;
  return r;
}

Recipe CommExposed() {
  Recipe r;
  r.exposed_allreduce = true;
  r.exposed_allreduce_ns = 18 * kNsPerMs;
  r.exposed_allreduce_nelems = 124439808;  // fp32 gradients of a 124M-parameter model
  r.min_world_size = 2;
  return r;
}

Recipe PageableCopies() {
  Recipe r;
  r.batch_bytes = 192ll << 20;
  r.batch_copy_ns = 18 * kNsPerMs;  // ~11 GB/s: staged through a pageable bounce buffer
  r.pageable_batch = true;
  return r;
}

Recipe SmallGrids() {
  Recipe r;
  r.small_batch_gemms = true;
  return r;
}

Recipe MemoryBoundElementwise() {
  Recipe r;
  r.eager_rms_norm = true;
  return r;
}

// A job that starts inside the capture (no profiler schedule): seconds of context creation and
// first allocations, a lazy module load, cudnn.benchmark, cuBLAS's first cudaFree and the
// DataLoader's workers starting, then a steady state whose workers cannot keep up (20 ms per
// step). The warm-up fills most of the capture.
Recipe WarmupInputBound() {
  Recipe r;
  r.dataloader_name = kMultiProcessNext;
  r.dataloader_ns = 20 * kNsPerMs;
  r.conv_stem = true;
  r.warmup.context_ns = 2200 * kNsPerMs;
  r.warmup.mallocs = 40;
  r.warmup.malloc_ns = 6 * kNsPerMs;
  r.warmup.module_load_ns = 45 * kNsPerMs;
  r.warmup.autotune_trials = 24;
  r.warmup.autotune_trial_ns = 1500 * kNsPerUs;
  r.warmup.cublas_init_ns = 380 * kNsPerMs;
  r.warmup.first_dataloader_ns = 2600 * kNsPerMs;
  return r;
}

// The profiler started after model set-up: only the first iteration's one-offs are captured
// (module load, autotuning, cuBLAS, the first batch), short against a launch-bound steady state.
Recipe WarmupLaunchBound() {
  Recipe r = LaunchBound();
  r.conv_stem = true;
  r.warmup.module_load_ns = 30 * kNsPerMs;
  r.warmup.autotune_trials = 8;
  r.warmup.autotune_trial_ns = 1000 * kNsPerUs;
  r.warmup.cublas_init_ns = 25 * kNsPerMs;
  r.warmup.first_dataloader_ns = 60 * kNsPerMs;
  return r;
}

// A mildly input-bound job (10 ms per step in __next__) whose capture ends in the flush.
Recipe LastStepFlush() {
  Recipe r;
  r.dataloader_ns = 10 * kNsPerMs;
  r.last_step_flush_ns = 120 * kNsPerMs;
  return r;
}

// DataLoader(num_workers=2) whose workers decode slower than the GPU trains: the main thread
// waits 15 ms per step in __next__ for the next batch from the workers' queue.
Recipe DataLoaderWorkers() {
  Recipe r;
  r.dataloader_name = kMultiProcessNext;
  r.dataloader_ns = 15 * kNsPerMs;
  return r;
}

Recipe DataLoaderWorkers113() {
  Recipe r = DataLoaderWorkers();
  r.args_113 = true;
  return r;
}

Recipe HostPreprocessAfterSync() {
  Recipe r;
  r.host_preprocess_ns = 12 * kNsPerMs;
  return r;
}

// model.eval() over a TorchScript-scripted feature function whose two fusion groups are
// compiled on the first call: 150 ms with nothing recorded inside the op, before the fused
// kernels' first cuLaunchKernel, then a short forward (4 layers). No profiler schedule: with
// the default steps the compile is most of the capture.
Recipe CompileInOp() {
  Recipe r;
  r.workload = Workload::kForward;
  r.profiler_steps = false;
  r.layers = 4;
  r.scripted.enabled = true;
  r.scripted.compile_ns = 150 * kNsPerMs;
  return r;
}

// An inference engine's start-up: an eager profile run the first capture's synchronize waits
// for, then one torch.cuda.graph() capture of a 16-layer decoder per step (batch size).
Recipe GraphCapture() {
  Recipe r;
  r.workload = Workload::kGraphCapture;
  r.profiler_steps = false;
  r.layers = 16;
  r.profile_run_ns = 40 * kNsPerMs;
  return r;
}

// Inference steps waiting 10 ms each on the DataLoader, then a TensorRT-style teardown after the
// last launch: 3000 cuModuleUnload/cuMemUnmap/cuMemRelease calls with the GPU idle.
Recipe TeardownTailRecipe() {
  Recipe r;
  r.workload = Workload::kForward;
  r.dataloader_ns = 10 * kNsPerMs;
  r.teardown.calls = 3000;
  return r;
}

// A decode loop of a 32-layer decoder: each step one cudaGraphLaunch of ~10.6 ms of kernels,
// argmax, the token to the host, ~0.4 ms of host work around it.
Recipe DecodeGraphReplay() {
  Recipe r;
  r.workload = Workload::kDecodeGraph;
  r.layers = 32;
  return r;
}

const std::array<ScenarioInfo, 18>& Catalog() {
  static const std::array<ScenarioInfo, 18> catalog = {{
      {"healthy", "well-fed GPU: kernels back to back, ~95% busy, small launch gaps", "none",
       Recipe{}},
      {"input-bound",
       "each step waits 20 ms in a single-process DataLoader __next__ while the GPU idles",
       "input.dataloader_wait", InputBound()},
      {"launch-bound",
       "2000 tiny 2-5 us optimizer kernels per step, each behind a 6-8 us cudaLaunchKernel",
       "launch.tiny_kernels", LaunchBound()},
      {"sync-heavy",
       "12 extra .item() calls per step drain the GPU, each followed by 600 us of Python",
       "launch.sync_points", SyncHeavy()},
      {"comm-exposed",
       "an 18 ms all-reduce after backward on the NCCL stream, not overlapped with compute",
       "communication.exposed", CommExposed()},
      {"pageable-copies",
       "a 192 MiB host-to-device copy from pageable memory blocks the host 18 ms each step",
       "input.pageable_copies", PageableCopies()},
      {"small-grids",
       "a per-GPU batch too small for the H100: every GEMM runs 33 thread blocks on 132 SMs",
       "memory.small_batch_gemms", SmallGrids()},
      {"memory-bound-elementwise",
       "RMSNorm written in eager fp32 PyTorch: 8 elementwise/reduction kernels per norm forward, "
       "12 backward, each a round trip through HBM; ~45% of kernel time",
       "compute.memory_bound_elementwise", MemoryBoundElementwise()},
      {"warmup-input-bound",
       "the first step holds seconds of CUDA context creation, allocations, a lazy module load, "
       "cudnn.benchmark, cuBLAS set-up and DataLoader worker start-up (most of the capture); "
       "then each step waits 20 ms for its workers",
       "input.dataloader_wait", WarmupInputBound()},
      {"warmup-launch-bound",
       "a brief first-iteration warm-up (module load, autotuning, cuBLAS set-up, first batch: "
       "under half the capture) before launch-bound steps of 2000 tiny kernels",
       "launch.tiny_kernels", WarmupLaunchBound()},
      {"last-step-flush",
       "each step waits 10 ms in a single-process DataLoader; the last ProfilerStep ends 120 ms "
       "after its work in the profiler's own stop and flush, with no GPU work",
       "input.dataloader_wait", LastStepFlush()},
      {"dataloader-workers",
       "each step waits 15 ms in a multiprocessing DataLoader __next__ for its workers while "
       "the GPU idles",
       "input.dataloader_wait", DataLoaderWorkers()},
      {"dataloader-workers-v113", "dataloader-workers written with PyTorch 1.13's span args",
       "input.dataloader_wait", DataLoaderWorkers113()},
      {"host-preprocess-after-sync",
       "each step's loss.item() drains the GPU, then the host preprocesses the next image on "
       "the CPU (PIL resize, aten::upsample_bilinear2d, aten::to, normalize) for 12 ms",
       "host.cpu_bound_gaps", HostPreprocessAfterSync()},
      {"compile-in-op",
       "model.eval() over a TorchScript-scripted pair_delta_r2 whose first call compiles its two "
       "fusion groups for 150 ms (nothing recorded) before their first cuLaunchKernel; no "
       "ProfilerStep, the compile is most of the capture",
       "quality.warmup_dominated", CompileInOp()},
      {"graph-capture",
       "an inference engine's start-up: an eager profile run, then per step one "
       "torch.cuda.graph() capture (cudaDeviceSynchronize, gc, cudaStreamBeginCapture, "
       "launches that do not run, cudaStreamEndCapture, cudaGraphInstantiate)",
       "quality.warmup_dominated", GraphCapture()},
      {"teardown-tail",
       "inference steps waiting 10 ms each on the DataLoader, then 3000 cuModuleUnload/"
       "cuMemUnmap/cuMemRelease calls after the last launch with the GPU idle",
       "input.dataloader_wait", TeardownTailRecipe()},
      {"decode-graph-replay",
       "an inference decode loop: each step one cudaGraphLaunch replaying a 32-layer decoder "
       "(~10.6 ms of kernels), argmax and the token to the host; the GPU is ~96% busy",
       "compute.gpu_bound", DecodeGraphReplay()},
  }};
  return catalog;
}

std::string Int(int64_t v) { return fmt::format("{}", v); }
std::string Fraction(int64_t part, int64_t whole) {
  return fmt::format("{:.4f}", whole > 0 ? static_cast<double>(part) / whole : 0.0);
}

}  // namespace

std::span<const ScenarioInfo> AllScenarios() { return Catalog(); }

const ScenarioInfo* FindScenario(std::string_view name) {
  for (const ScenarioInfo& s : Catalog()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::vector<TruthEntry> InjectedTruth(const ScenarioInfo& scenario, const MeasuredStep& mean,
                                      int world_size) {
  const Recipe& r = scenario.recipe;
  std::vector<TruthEntry> out;
  if (scenario.name == "input-bound") {
    out.push_back({"dataloader_wait_ns_per_step", Int(r.dataloader_ns)});
    out.push_back({"dataloader_share_of_step", Fraction(r.dataloader_ns, mean.step_ns)});
  } else if (scenario.name == "launch-bound") {
    out.push_back({"tiny_kernels_per_step", Int(2ll * r.unfused_optimizer_params)});
    out.push_back({"tiny_kernel_min_ns", Int(r.tiny_kernel_min_ns)});
    out.push_back({"tiny_kernel_max_ns", Int(r.tiny_kernel_max_ns)});
    out.push_back({"launch_call_min_ns", Int(r.launch_min_ns)});
    out.push_back({"launch_call_max_ns", Int(r.launch_max_ns)});
  } else if (scenario.name == "sync-heavy") {
    out.push_back({"item_syncs_per_step", Int(r.mid_step_syncs + 1)});
    out.push_back({"mid_step_syncs_per_step", Int(r.mid_step_syncs)});
    out.push_back({"host_work_after_sync_ns", Int(r.host_work_after_sync_ns)});
    out.push_back({"sync_wait_ns_per_step", Int(mean.sync_wait_ns)});
    out.push_back({"gpu_idle_after_mid_step_syncs_ns_per_step", Int(mean.idle_after_sync_ns)});
  } else if (scenario.name == "comm-exposed") {
    out.push_back({"exposed_comm_ns_per_step", Int(r.exposed_allreduce_ns)});
    out.push_back({"exposed_comm_share_of_step", Fraction(r.exposed_allreduce_ns, mean.step_ns)});
    out.push_back({"allreduce_bytes_per_step", Int(4 * r.exposed_allreduce_nelems)});
    out.push_back({"world_size", Int(world_size)});
  } else if (scenario.name == "pageable-copies") {
    out.push_back({"pageable_copy_bytes_per_step", Int(r.batch_bytes)});
    out.push_back({"pageable_copy_ns_per_step", Int(r.batch_copy_ns)});
    out.push_back({"pageable_copy_share_of_step", Fraction(r.batch_copy_ns, mean.step_ns)});
  } else if (scenario.name == "small-grids") {
    // memory.small_batch_gemms' model: each GEMM x (1 - blocks / SMs).
    const int blocks = Kernels().gemm_tn_small.grid_x;
    out.push_back({"gemm_blocks", Int(blocks)});
    out.push_back({"device_sms", Int(kSynthDeviceSms)});
    out.push_back({"gemm_ns_per_step", Int(mean.gemm_ns)});
    out.push_back({"underfilled_gemm_share_of_gemm_time", "1.0000"});
    out.push_back({"underfilled_saving_ns_per_step",
                   Int(mean.gemm_ns * (kSynthDeviceSms - blocks) / kSynthDeviceSms)});
  } else if (scenario.name == "memory-bound-elementwise") {
    // compute.memory_bound_elementwise's model: their time x (1 - 1/1.5).
    out.push_back({"memory_bound_kernel_ns_per_step", Int(mean.memory_bound_ns)});
    out.push_back({"softmax_kernel_ns_per_step", Int(mean.softmax_ns)});
    out.push_back({"kernel_ns_per_step", Int(mean.kernel_ns)});
    out.push_back({"fusion_saving_ns_per_step", Int(mean.memory_bound_ns / 3)});
  }
  if (r.last_step_flush_ns > 0) {
    out.push_back({"last_step_flush_ns", Int(r.last_step_flush_ns)});
    out.push_back({"last_step_ns", Int(mean.last_step_ns)});
    out.push_back({"steady_state_steps", Int(mean.steady_steps)});
  }
  if (r.warmup.enabled()) {
    const WarmupPhase& w = r.warmup;
    out.push_back({"steady_state_steps", Int(mean.steady_steps)});
    out.push_back({"warmup_step_ns", Int(mean.first_step_ns)});
    out.push_back({"warmup_ns", Int(mean.warmup_ns)});
    out.push_back({"capture_ns", Int(mean.capture_ns)});
    out.push_back({"warmup_share_of_capture", Fraction(mean.warmup_ns, mean.capture_ns)});
    out.push_back({"warmup_dominates", 2 * mean.warmup_ns >= mean.capture_ns ? "true" : "false"});
    out.push_back({"context_setup_ns", Int(w.context_ns)});
    out.push_back({"module_load_ns", Int(w.module_load_ns)});
    out.push_back({"autotune_trials", Int(w.autotune_trials)});
    out.push_back({"cublas_init_ns", Int(w.cublas_init_ns)});
    out.push_back({"first_dataloader_ns", Int(w.first_dataloader_ns)});
  }
  if (scenario.name == "warmup-input-bound" || scenario.name == "last-step-flush" ||
      scenario.name == "dataloader-workers" || scenario.name == "dataloader-workers-v113") {
    out.push_back({"dataloader_wait_ns_per_step", Int(r.dataloader_ns)});
    out.push_back({"dataloader_share_of_step", Fraction(r.dataloader_ns, mean.step_ns)});
    out.push_back(
        {"dataloader_workers", r.dataloader_name == kMultiProcessNext ? "true" : "false"});
  } else if (scenario.name == "warmup-launch-bound") {
    out.push_back({"tiny_kernels_per_step", Int(2ll * r.unfused_optimizer_params)});
  } else if (scenario.name == "teardown-tail") {
    out.push_back({"dataloader_wait_ns_per_step", Int(r.dataloader_ns)});
    out.push_back({"dataloader_share_of_step", Fraction(r.dataloader_ns, mean.step_ns)});
    out.push_back({"teardown_calls", Int(r.teardown.calls)});
    out.push_back({"teardown_ns", Int(mean.one_off_ns)});
    out.push_back({"teardown_in_last_step", r.teardown.in_last_step ? "true" : "false"});
    out.push_back({"capture_ns", Int(mean.capture_ns)});
    out.push_back({"steady_state_steps", Int(mean.steady_steps)});
  } else if (scenario.name == "compile-in-op") {
    out.push_back({"compile_ns", Int(r.scripted.compile_ns)});
    out.push_back({"compile_step", Int(r.scripted.compile_step)});
    out.push_back({"fusion_groups", Int(r.scripted.fusion_groups)});
    out.push_back({"capture_ns", Int(mean.capture_ns)});
    out.push_back({"compile_share_of_capture", Fraction(r.scripted.compile_ns, mean.capture_ns)});
    out.push_back(
        {"warmup_dominates", 2 * r.scripted.compile_ns >= mean.capture_ns ? "true" : "false"});
    out.push_back({"steady_state_steps", Int(mean.steady_steps)});
    out.push_back({"job_kind", "\"inference\""});
  } else if (scenario.name == "graph-capture") {
    out.push_back({"graph_captures", Int(mean.one_off_steps)});
    out.push_back({"captured_launches_per_graph", Int(mean.captured_launches)});
    out.push_back({"graph_capture_ns", Int(mean.one_off_ns)});
    out.push_back({"capture_ns", Int(mean.capture_ns)});
    out.push_back({"warmup_dominates", 2 * mean.one_off_ns >= mean.capture_ns ? "true" : "false"});
    out.push_back({"job_kind", "\"inference\""});
  } else if (scenario.name == "decode-graph-replay") {
    out.push_back({"graph_kernels_per_step", Int(mean.graph_kernels)});
    out.push_back({"graph_upload_ns", Int(r.graph_upload_ns)});
    out.push_back({"steady_state_steps", Int(mean.steady_steps)});
    out.push_back({"job_kind", "\"inference\""});
  } else if (scenario.name == "host-preprocess-after-sync") {
    out.push_back({"host_preprocess_ns_per_step", Int(r.host_preprocess_ns)});
    out.push_back({"host_preprocess_share_of_step", Fraction(r.host_preprocess_ns, mean.step_ns)});
    out.push_back({"sync_wait_ns_per_step", Int(mean.sync_wait_ns)});
    out.push_back({"top_cpu_op", "\"aten::upsample_bilinear2d\""});
    out.push_back({"top_python_frame", "\"PIL/Image.py(2205): resize\""});
  }
  return out;
}

Status ApplyRecipeParams(std::span<const std::string> params, Recipe& recipe) {
  struct Key {
    std::string_view name;
    int64_t min, max;
    void (*set)(Recipe&, int64_t);
  };
  static constexpr Key kKeys[] = {
      {"compile_ms", 0, 100000, [](Recipe& r, int64_t v) { r.scripted.compile_ns = v * kNsPerMs; }},
      {"compile_step", 1, 10000000, [](Recipe& r, int64_t v) { r.scripted.compile_step = int(v); }},
      {"fusion_groups", 1, 4, [](Recipe& r, int64_t v) { r.scripted.fusion_groups = int(v); }},
      {"profiler_steps", 0, 1, [](Recipe& r, int64_t v) { r.profiler_steps = v != 0; }},
      {"teardown_calls", 0, 1000000, [](Recipe& r, int64_t v) { r.teardown.calls = int(v); }},
      {"teardown_in_last_step", 0, 1,
       [](Recipe& r, int64_t v) { r.teardown.in_last_step = v != 0; }},
      {"upload_ms", 0, 100000, [](Recipe& r, int64_t v) { r.graph_upload_ns = v * kNsPerMs; }},
      {"engine_frames", 0, 1, [](Recipe& r, int64_t v) { r.engine_frames = v != 0; }},
      {"profile_run_ms", 0, 100000, [](Recipe& r, int64_t v) { r.profile_run_ns = v * kNsPerMs; }},
      {"layers", 1, 1000, [](Recipe& r, int64_t v) { r.layers = int(v); }},
      {"dataloader_ms", 0, 100000, [](Recipe& r, int64_t v) { r.dataloader_ns = v * kNsPerMs; }},
  };
  for (const std::string& param : params) {
    size_t eq = param.find('=');
    std::string_view key = std::string_view(param).substr(0, eq);
    const Key* found = nullptr;
    for (const Key& k : kKeys) found = k.name == key ? &k : found;
    if (found == nullptr || eq == std::string::npos) {
      std::vector<std::string_view> names;
      for (const Key& k : kKeys) names.push_back(k.name);
      return InvalidArgument("scenario parameter '{}' is not key=value with a known key ({})",
                             param, fmt::join(names, ", "));
    }
    char* end = nullptr;
    long long value = std::strtoll(param.c_str() + eq + 1, &end, 10);
    if (end == param.c_str() + eq + 1 || *end != '\0' || value < found->min || value > found->max) {
      return InvalidArgument("scenario parameter '{}': want an integer in [{}, {}]", param,
                             found->min, found->max);
    }
    found->set(recipe, value);
  }
  return Status::Ok();
}

std::vector<std::string> ScenarioNames() {
  std::vector<std::string> names;
  for (const ScenarioInfo& s : Catalog()) names.emplace_back(s.name);
  return names;
}

const char* ScenarioDescription(std::string_view name) {
  const ScenarioInfo* s = FindScenario(name);
  return s == nullptr ? nullptr : s->description;
}

const char* ScenarioExpectedFinding(std::string_view name) {
  const ScenarioInfo* s = FindScenario(name);
  return s == nullptr ? nullptr : s->expected_finding;
}

}  // namespace gpuwhy
