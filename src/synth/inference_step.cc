#include "synth/inference_step.h"

#include <algorithm>

#include "synth/kernels.h"

namespace gpuwhy {
namespace {

// CUPTI runtime callback ids (cupti_runtime_cbid.h) and driver ones (cupti_driver_cbid.h).
constexpr int kCbidBeginCapture = 324;
constexpr int kCbidEndCapture = 325;
constexpr int kCbidGraphInstantiate = 422;
constexpr int kCbidModuleUnload = 17;
constexpr int kCbidMemUnmap = 578;
constexpr int kCbidMemRelease = 575;

// One decoder layer of the served model at decode batch size: the ops and their kernels' time
// (µs) for one token per sequence; GEMMs read the weights once per step (memory-bound, long).
struct LayerOp {
  const char* op;
  const KernelSpec* kernel;
  DurationNs us;
};
std::vector<LayerOp> DecoderLayer() {
  const KernelCatalog& k = Kernels();
  return {{"aten::native_layer_norm", &k.layer_norm_fwd, 6},
          {"aten::addmm", &k.gemm_tn, 60},
          {"aten::_flash_attention_forward", &k.flash_fwd, 40},
          {"aten::addmm", &k.gemm_tn, 30},
          {"aten::add", &k.add_bf16, 4},
          {"aten::native_layer_norm", &k.layer_norm_fwd, 6},
          {"aten::addmm", &k.gemm_tn, 110},
          {"aten::gelu", &k.gelu_fwd, 8},
          {"aten::addmm", &k.gemm_tn, 55},
          {"aten::add", &k.add_bf16, 4}};
}

}  // namespace

InferenceStep::InferenceStep(const Recipe& recipe, int main_tid)
    : recipe_(recipe), main_tid_(main_tid) {
  const std::vector<LayerOp> layer = DecoderLayer();
  for (int l = 0; l < recipe.layers; ++l) {
    for (const LayerOp& op : layer) graph_.emplace_back(op.kernel, op.us * kNsPerUs);
  }
  graph_.emplace_back(&Kernels().layer_norm_fwd, 6 * kNsPerUs);
  graph_.emplace_back(&Kernels().gemm_tn, 250 * kNsPerUs);  // lm_head
}

StepStats InferenceStep::Run(Timeline& t, int number, bool last) {
  t.SetThread(main_tid_);
  t.SetLaunchCost(recipe_.launch_min_ns, recipe_.launch_max_ns);
  t.BeginStep(number);
  StepStats stats;
  if (recipe_.workload == Workload::kGraphCapture) {
    Capture(t, number, stats);
  } else {
    Decode(t, stats);
  }
  if (last && recipe_.teardown.in_last_step)
    stats.one_off_ns += WriteTeardownTail(t, recipe_.teardown);
  StepStats measured = t.EndStep();
  measured.one_off_ns = stats.one_off_ns;
  measured.captured_launches = stats.captured_launches;
  measured.graph_kernels = stats.graph_kernels;
  measured.kernel_ns = t.StepKernelNs([](const KernelSpec*) { return true; });
  return measured;
}

// The scheduler's bookkeeping, the new tokens' ids and positions up (pinned, non-blocking), one
// replay of the whole model, greedy sampling, and the sampled ids back to the host (`.tolist()`:
// a copy the host waits on), then detokenising and output processing.
void InferenceStep::Decode(Timeline& t, StepStats& stats) {
  const KernelCatalog& k = Kernels();
  // The engine's Python, recorded as frames (with_stack=True, as vLLM's profiler runs it).
  if (recipe_.engine_frames) {
    t.Begin("vllm/v1/core/sched/scheduler.py(212): schedule", EventCat::kPythonFunction);
  }
  HostWork(t, 120000, 200000);
  if (recipe_.engine_frames) t.End();
  for (int i = 0; i < 2; ++i) {
    t.Begin("aten::copy_");
    HostWork(t, 3000, 6000);
    t.MemcpyAsync("Memcpy HtoD (Pinned -> Device)", 2048, 1200, false);
    HostWork(t, 1000, 2000);
    t.End();
  }
  std::vector<std::pair<const KernelSpec*, DurationNs>> replay = graph_;
  for (auto& [spec, ns] : replay) ns = t.rng().Jitter(ns, 6);
  const DurationNs upload = first_replay_ ? recipe_.graph_upload_ns : 0;
  HostWork(t, 4000, 8000);
  t.GraphLaunch(replay, upload);
  stats.one_off_ns += upload;
  stats.graph_kernels = static_cast<int>(replay.size());
  first_replay_ = false;
  t.Begin("aten::argmax");
  HostWork(t, 4000, 7000);
  t.Launch(k.argmax, t.rng().Jitter(5 * kNsPerUs, 20));
  HostWork(t, 1000, 2000);
  t.End();
  t.Begin("aten::to");
  HostWork(t, 2000, 4000);
  t.Begin("aten::_to_copy");
  HostWork(t, 2000, 4000);
  t.Begin("aten::copy_");
  HostWork(t, 2000, 3000);
  t.MemcpyAsync("Memcpy DtoH (Device -> Pinned)", 1024, 1500, false);
  t.StreamSynchronize(kComputeStream);
  HostWork(t, 1000, 2000);
  t.End();
  t.End();
  t.End();
  if (recipe_.engine_frames) {
    t.Begin("vllm/v1/core/sched/scheduler.py(781): update_from_output", EventCat::kPythonFunction);
  }
  HostWork(t, 150000, 250000);
  if (recipe_.engine_frames) t.End();
}

void InferenceStep::EagerForward(Timeline& t, bool captured, int& launches) {
  // The profile run's kernels run at a large batch: each takes profile_run_ns / kernels.
  const DurationNs per_kernel =
      recipe_.profile_run_ns / std::max<DurationNs>(1, static_cast<DurationNs>(graph_.size()));
  const std::vector<LayerOp> layer = DecoderLayer();
  auto op = [&](const char* name, const KernelSpec& kernel) {
    t.Begin(name);
    HostWork(t, 6000, 12000);
    if (captured) {
      t.CapturedLaunch();
    } else {
      t.Launch(kernel, t.rng().Jitter(per_kernel, 10));
    }
    ++launches;
    HostWork(t, 2000, 4000);
    t.End();
  };
  for (int l = 0; l < recipe_.layers; ++l) {
    for (const LayerOp& o : layer) op(o.op, *o.kernel);
  }
  op("aten::native_layer_norm", Kernels().layer_norm_fwd);
  op("aten::mm", Kernels().gemm_tn);
}

// torch.cuda.graph(): synchronize, gc.collect(), capture the forward, instantiate. The first
// capture follows the engine's eager profile run, which its synchronize waits for.
void InferenceStep::Capture(Timeline& t, int number, StepStats& stats) {
  int ignored = 0;
  if (number == 1 && recipe_.profile_run_ns > 0) EagerForward(t, false, ignored);
  HostWork(t, 200000, 400000);  // the capture loop's own Python: pick the batch size, make inputs
  const TimeNs begin = t.now();
  t.DeviceSynchronize();
  HostWork(t, 2000000, 4000000);  // gc.collect()
  t.RuntimeCall("cudaStreamBeginCapture", kCbidBeginCapture, 3 * kNsPerUs);
  int launches = 0;
  EagerForward(t, true, launches);
  t.RuntimeCall("cudaStreamEndCapture", kCbidEndCapture, 12 * kNsPerUs);
  HostWork(t, 5000, 10000);
  // Instantiation walks every node: a few µs each.
  t.RuntimeCall("cudaGraphInstantiateWithFlags", kCbidGraphInstantiate,
                200 * kNsPerUs + 3 * kNsPerUs * launches);
  stats.one_off_ns += t.now() - begin;
  stats.captured_launches = launches;
  HostWork(t, 100000, 300000);
}

DurationNs WriteTeardownTail(Timeline& t, const TeardownTail& tail) {
  const TimeNs begin = t.now();
  // The engine's modules first, then its memory: unmap and release each mapping.
  const int unloads = tail.calls / 2;
  for (int i = 0; i < tail.calls; ++i) {
    if (i < unloads) {
      t.DriverCall("cuModuleUnload", kCbidModuleUnload, t.rng().Uniform(20000, 45000));
    } else if ((i - unloads) % 2 == 0) {
      t.DriverCall("cuMemUnmap", kCbidMemUnmap, t.rng().Uniform(6000, 14000));
    } else {
      t.DriverCall("cuMemRelease", kCbidMemRelease, t.rng().Uniform(4000, 9000));
    }
    HostWork(t, 300, 900);
  }
  return t.now() - begin;
}

}  // namespace gpuwhy
