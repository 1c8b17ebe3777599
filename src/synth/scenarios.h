// The scenario catalog: each scenario is one Recipe (plain data driving the training
// step generator) plus what the ground truth says was injected.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time.h"

namespace gpuwhy {

// The DataLoader's `__next__` span as PyTorch names it (one process, or waiting on workers).
inline constexpr std::string_view kSingleProcessNext =
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
inline constexpr std::string_view kMultiProcessNext =
    "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";

// One-off initialisation inside the first step (warm-up scenarios); all zero: none. The
// numbers are exact: the first step holds these on top of an ordinary step.
struct WarmupPhase {
  DurationNs context_ns = 0;      // cudaDeviceGetStreamPriorityRange: creates the CUDA context
  int mallocs = 0;                // cudaMalloc + cudaFree pairs of parameters and optimizer state
  DurationNs malloc_ns = 0;       // each call
  DurationNs module_load_ns = 0;  // the job's first cudaLaunchKernel loads the module
  int autotune_trials = 0;        // cudnn.benchmark: candidate kernels timed by events
  DurationNs autotune_trial_ns = 0;    // each candidate kernel
  DurationNs cublas_init_ns = 0;       // the first aten::addmm's cudaFree (cuBLAS handle)
  DurationNs first_dataloader_ns = 0;  // the first __next__ (workers start)
  bool enabled() const { return context_ns > 0 || module_load_ns > 0 || cublas_init_ns > 0; }
};

// What one simulated step is.
enum class Workload : uint8_t {
  kTraining,  // DataLoader, forward, backward, optimizer, loss.item() (TrainingStep)
  kForward,   // model.eval() under no_grad: DataLoader, forward, the outputs to the host
  // An inference engine's decode step: inputs up, one cudaGraphLaunch replaying the whole
  // model, argmax, the next token to the host (InferenceStep).
  kDecodeGraph,
  // An inference engine's start-up: each step is one torch.cuda.graph() capture of the decode
  // model for one batch size, after one eager profile run and a device synchronize.
  kGraphCapture,
};

// A TorchScript-scripted function called at the start of the forward (pairwise particle
// features, as ParT's delta_r2): its fusion groups run as fused__autocast_to__<hash> kernels
// launched with cuLaunchKernel. In `compile_step` a new input shape makes the profiling executor
// specialise and compile them: the call is silent on the host for compile_ns (exact, split
// over the groups) before each new kernel's first launch. Steps before it launch the previous
// specialisation's kernels (compiled before the capture began).
struct ScriptedFunction {
  bool enabled = false;
  int fusion_groups = 2;
  DurationNs compile_ns = 0;
  int compile_step = 1;
};

// Driver calls after the job's last launch with the GPU idle: a TensorRT engine and its CUDA
// context destroyed (cuModuleUnload per module, cuMemUnmap/cuMemRelease/cuMemAddressFree per
// allocation). `in_last_step`: inside the last ProfilerStep, else after it.
struct TeardownTail {
  int calls = 0;
  bool in_last_step = false;
};

// Shape of one simulated training step (a bf16 transformer on one H100 per rank).
struct Recipe {
  Workload workload = Workload::kTraining;
  // false: no ProfilerStep spans (no profiler schedule): the analysis sees one window.
  bool profiler_steps = true;
  ScriptedFunction scripted;
  TeardownTail teardown;
  // kDecodeGraph: the first replay's first kernel starts this long after cudaGraphLaunch
  // returned, with the device idle (the graph's upload). Exact.
  DurationNs graph_upload_ns = 0;
  // kDecodeGraph: the engine's Python around each replay is recorded as frames (with_stack,
  // as vLLM profiles); false: it is unrecorded host time between ops.
  bool engine_frames = true;
  // kGraphCapture: GPU time of the eager profile run the first capture's synchronize waits on.
  DurationNs profile_run_ns = 0;
  int layers = 12;
  DurationNs dataloader_ns = 180 * kNsPerUs;  // exact `__next__` duration
  int64_t batch_bytes = 4ll << 20;            // input_ids + labels copied to the GPU
  DurationNs batch_copy_ns = 175 * kNsPerUs;  // exact
  bool pageable_batch = false;                // copy from pageable memory: host blocks
  int mid_step_syncs = 0;                     // extra `.item()` calls during forward
  DurationNs host_work_after_sync_ns = 0;     // Python work after each of them
  int unfused_optimizer_params = 0;           // >0: SGD per parameter (mul_ + add_)
  DurationNs tiny_kernel_min_ns = 2 * kNsPerUs;
  DurationNs tiny_kernel_max_ns = 5 * kNsPerUs;
  DurationNs launch_min_ns = 4 * kNsPerUs;  // cudaLaunchKernel call duration
  DurationNs launch_max_ns = 6 * kNsPerUs;
  bool exposed_allreduce = false;       // one all-reduce after backward, not overlapped
  DurationNs exposed_allreduce_ns = 0;  // exact
  int64_t exposed_allreduce_nelems = 0;
  int min_world_size = 1;  // the job's world size is at least this
  // A per-GPU batch too small for the device: every GEMM runs 33 blocks on 132 SMs (a quarter
  // of them), as long as the full-size GEMM (latency, not work, sets its time).
  bool small_batch_gemms = false;
  // RMSNorm written in eager PyTorch instead of the fused LayerNorm: the activations go to
  // fp32 and through pow, mean, add, rsqrt and two muls, one HBM round trip per op.
  bool eager_rms_norm = false;
  std::string_view dataloader_name = kSingleProcessNext;
  // Host spans carry the PyTorch 1.13 args ("Trace name", "Profiler Event Index", as the 2022
  // HTA traces show) instead of 2.x's ("Record function id", "Ev Idx").
  bool args_113 = false;
  // A patch-embedding convolution (aten::conv2d ... aten::cudnn_convolution) before the
  // transformer: what cudnn.benchmark autotunes in the first step.
  bool conv_stem = false;
  WarmupPhase warmup;
  // The last ProfilerStep ends this long after its work: the host idles on to the profiler's
  // stop and flush, with no GPU work (what HTA leaves out as the last step).
  DurationNs last_step_flush_ns = 0;
  // After the end-of-step loss.item(), the host preprocesses the next sample on the CPU (an
  // image processor: Python frames over aten::to / upsample / normalize CPU ops) this long
  // while the GPU sits drained. Exact.
  DurationNs host_preprocess_ns = 0;
};

// Measured per-step means from the simulation, for the ground truth.
struct MeasuredStep {
  DurationNs step_ns = 0;
  DurationNs gpu_busy_ns = 0;
  DurationNs sync_wait_ns = 0;
  DurationNs idle_after_sync_ns = 0;
  int64_t kernels = 0;
  DurationNs gemm_ns = 0;
  DurationNs memory_bound_ns = 0;  // elementwise, normalization, reduction kernels
  DurationNs softmax_ns = 0;
  DurationNs kernel_ns = 0;
  // Over the whole capture, not per step (warm-up and last-step scenarios).
  int steady_steps = 0;          // steps the means above are over
  DurationNs first_step_ns = 0;  // the first step's span
  DurationNs last_step_ns = 0;   // the last step's span
  DurationNs capture_ns = 0;     // trace start to the last step's end
  DurationNs warmup_ns = 0;      // trace start to the end of the first step
  // Injected one-off work over the whole capture (compilation, graph captures, teardown),
  // exact: the span of what the generator wrote for it.
  DurationNs one_off_ns = 0;
  int one_off_steps = 0;      // steps holding some of it
  int captured_launches = 0;  // kGraphCapture: launches recorded into each graph
  int graph_kernels = 0;      // kDecodeGraph: kernels each replay runs
};

// One "key": value pair of the truth's "injected" object; value is raw JSON.
struct TruthEntry {
  std::string key;
  std::string value;
};

struct ScenarioInfo {
  std::string_view name;
  const char* description;
  const char* expected_finding;
  Recipe recipe;
};

std::span<const ScenarioInfo> AllScenarios();
const ScenarioInfo* FindScenario(std::string_view name);

// What the scenario injected, per step, in exact numbers where it is exact.
std::vector<TruthEntry> InjectedTruth(const ScenarioInfo& scenario, const MeasuredStep& mean,
                                      int world_size);

// Applies "key=value" overrides to a scenario's recipe (SynthOptions::params): the shapes a
// scenario varies over in tests. Unknown keys or bad values give kInvalidArgument naming the
// known keys.
Status ApplyRecipeParams(std::span<const std::string> params, Recipe& recipe);

}  // namespace gpuwhy
