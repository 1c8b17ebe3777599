// Generates one ProfilerStep of a bf16 transformer training loop as PyTorch 2.x records
// it: DataLoader, batch copy, forward on the main thread, backward on the autograd
// thread (with DDP all-reduce buckets when distributed), optimizer, loss.item().
#pragma once

#include <string>

#include "synth/scenarios.h"
#include "synth/timeline.h"

namespace gpuwhy {

class TrainingStep {
 public:
  TrainingStep(const Recipe& recipe, int main_tid, int autograd_tid, int world_size);

  // Appends step `number` to the timeline and returns its measured facts; `last` is the
  // capture's last step (where the profiler's flush may follow).
  StepStats Run(Timeline& t, int number, bool last = false);

 private:
  // The recipe's warm-up: context creation and first allocations, inside the first step.
  void Initialize(Timeline& t);
  // recipe.scripted: the scripted function's call, compiling in its compile_step.
  void ScriptedCall(Timeline& t);
  void ConvStem(Timeline& t);
  void ConvStemBackward(Timeline& t);
  // The next sample's CPU preprocessing after loss.item() (host_preprocess_ns, exact).
  void Preprocess(Timeline& t);
  void CopyBatch(Timeline& t);
  void Norm(Timeline& t);  // fused LayerNorm, or eager_rms_norm's chain
  void NormBackward(Timeline& t);
  void Forward(Timeline& t);
  void Backward(Timeline& t);
  void Optimizer(Timeline& t);
  void ItemSync(Timeline& t, DurationNs host_work_after);
  void AllReduce(Timeline& t, const std::string& args, DurationNs kernel_ns);

  const Recipe& recipe_;
  // The GEMM kernels of this recipe: full grids, or a quarter of the SMs (small_batch_gemms).
  const KernelSpec* gemm_tn_;
  const KernelSpec* gemm_nn_;
  const KernelSpec* gemm_nt_;
  DurationNs step_gemm_ns_ = 0;     // GEMM kernel time of the step being generated
  bool first_step_ = true;          // one-offs of recipe.warmup still to come
  int step_number_ = 0;             // the step being generated
  DurationNs step_one_off_ns_ = 0;  // injected one-off time in it
  DurationNs cublas_init_ns_ = 0;   // the first aten::addmm's cudaFree, until it ran
  int main_tid_;
  int autograd_tid_;
  int world_size_;
  // Collective args as record_param_comms and the NCCL kernel carry them.
  std::string bucket_args_;
  std::string exposed_args_;
};

}  // namespace gpuwhy
