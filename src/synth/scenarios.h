// The scenario catalog: each scenario is one Recipe (plain data driving the training
// step generator) plus what the ground truth says was injected.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"

namespace gpuwhy {

// Shape of one simulated training step (a bf16 transformer on one H100 per rank).
struct Recipe {
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

}  // namespace gpuwhy
