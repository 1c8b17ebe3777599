#include "synth/scenarios.h"

#include <fmt/format.h>

#include <array>

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

const std::array<ScenarioInfo, 8>& Catalog() {
  static const std::array<ScenarioInfo, 8> catalog = {{
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
  return out;
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
