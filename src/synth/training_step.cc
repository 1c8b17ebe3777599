#include "synth/training_step.h"

#include <fmt/format.h>

#include <algorithm>

#include "synth/inference_step.h"
#include "synth/kernels.h"

namespace gpuwhy {
namespace {

// CUPTI callback ids (cupti_runtime_cbid.h) of the set-up calls the warm-up makes.
constexpr int kCbidGetDeviceCount = 3;
constexpr int kCbidMalloc = 20;
constexpr int kCbidFree = 27;
constexpr int kCbidStreamPriorityRange = 210;
constexpr int kCbidStreamCreateWithPriority = 211;
// DDP's default bucket_cap_mb=25 holds 6553600 fp32 gradients.
constexpr int64_t kBucketNelems = 6553600;
constexpr DurationNs kBucketAllReduceNs = 1100 * kNsPerUs;

DurationNs Gpu(Timeline& t, DurationNs base_us) { return t.rng().Jitter(base_us * kNsPerUs, 30); }

// An ATen op whose body launches one kernel; returns the kernel's duration.
DurationNs KernelOp(Timeline& t, std::string_view name, const KernelSpec& k, DurationNs base_us) {
  t.Begin(name);
  HostWork(t, 3000, 7000);
  DurationNs kernel_ns = Gpu(t, base_us);
  t.Launch(k, kernel_ns);
  HostWork(t, 1000, 2500);
  t.End();
  return kernel_ns;
}

// aten::linear → aten::t (view) + aten::addmm (the GEMM); returns the GEMM's duration.
// `first_free_ns` > 0: this addmm is the job's first, and cuBLAS creates its handle and
// workspace (a long cudaFree that syncs the device) before the launch.
DurationNs Linear(Timeline& t, const KernelSpec& gemm, DurationNs gemm_us,
                  DurationNs* first_free_ns = nullptr) {
  t.Begin("aten::linear");
  HostWork(t, 1500, 3000);
  t.Begin("aten::t");
  HostWork(t, 1000, 2000);
  t.Begin("aten::transpose");
  HostWork(t, 1000, 2000);
  t.Begin("aten::as_strided");
  HostWork(t, 500, 1200);
  t.End();
  t.End();
  t.End();
  if (first_free_ns == nullptr || *first_free_ns <= 0) {
    DurationNs gemm_ns = KernelOp(t, "aten::addmm", gemm, gemm_us);
    t.End();
    return gemm_ns;
  }
  t.Begin("aten::addmm");
  HostWork(t, 3000, 7000);
  t.RuntimeCall("cudaFree", kCbidFree, *first_free_ns);
  *first_free_ns = 0;
  DurationNs gemm_ns = Gpu(t, gemm_us);
  t.Launch(gemm, gemm_ns);
  HostWork(t, 1000, 2500);
  t.End();
  t.End();
  return gemm_ns;
}

void FusedLayerNorm(Timeline& t) {
  t.Begin("aten::layer_norm");
  HostWork(t, 1500, 3000);
  KernelOp(t, "aten::native_layer_norm", Kernels().layer_norm_fwd, 14);
  t.End();
}

// x.float(); x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps); .to(bf16) * weight.
void EagerRmsNorm(Timeline& t) {
  const KernelCatalog& k = Kernels();
  t.Begin("aten::to");
  HostWork(t, 1500, 3000);
  KernelOp(t, "aten::_to_copy", k.copy_to_f32, 60);
  t.End();
  KernelOp(t, "aten::pow", k.pow_f32, 60);
  KernelOp(t, "aten::mean", k.mean_f32, 30);
  KernelOp(t, "aten::add", k.add_scalar_f32, 6);  // on the [tokens, 1] mean
  KernelOp(t, "aten::rsqrt", k.rsqrt_f32, 6);
  KernelOp(t, "aten::mul", k.mul_f32, 60);
  t.Begin("aten::to");
  HostWork(t, 1500, 3000);
  KernelOp(t, "aten::_to_copy", k.copy_bf16, 35);
  t.End();
  KernelOp(t, "aten::mul", k.mul_f32, 60);
}

void Attention(Timeline& t) {
  t.Begin("aten::scaled_dot_product_attention");
  HostWork(t, 2000, 4000);
  t.Begin("aten::_scaled_dot_product_flash_attention");
  HostWork(t, 2000, 4000);
  t.Begin("aten::empty");
  HostWork(t, 1000, 2000);
  t.End();
  KernelOp(t, "aten::_flash_attention_forward", Kernels().flash_fwd, 140);
  t.End();
  t.End();
}

// autograd::engine::evaluate_function: X → X → one op per kernel; returns their durations.
DurationNs BackwardNode(Timeline& t, std::string_view evaluate, std::string_view node,
                        std::initializer_list<std::pair<const KernelSpec*, DurationNs>> kernels,
                        std::string_view op = "aten::mm") {
  t.Begin(evaluate);
  HostWork(t, 2000, 4000);
  t.Begin(node);
  HostWork(t, 1500, 3000);
  DurationNs kernels_ns = 0;
  for (const auto& [spec, base_us] : kernels) kernels_ns += KernelOp(t, op, *spec, base_us);
  t.End();
  HostWork(t, 1000, 2000);
  t.End();
  return kernels_ns;
}

// Autograd of EagerRmsNorm: one node per eager op, backwards.
void EagerRmsNormBackward(Timeline& t) {
  const KernelCatalog& k = Kernels();
  // Timeline keeps span names as views: literals only.
#define GPUWHY_EVAL(node) "autograd::engine::evaluate_function: " node, node
  BackwardNode(t, GPUWHY_EVAL("MulBackward0"), {{&k.mul_f32, 60}, {&k.sum_f32, 30}}, "aten::mul");
  BackwardNode(t, GPUWHY_EVAL("ToCopyBackward0"), {{&k.copy_to_f32, 60}}, "aten::_to_copy");
  BackwardNode(t, GPUWHY_EVAL("MulBackward0"),
               {{&k.mul_f32, 60}, {&k.mul_f32, 60}, {&k.sum_f32, 30}}, "aten::mul");
  BackwardNode(t, GPUWHY_EVAL("RsqrtBackward0"), {{&k.mul_f32, 6}}, "aten::mul");
  BackwardNode(t, GPUWHY_EVAL("AddBackward0"), {{&k.add_scalar_f32, 6}}, "aten::add");
  BackwardNode(t, GPUWHY_EVAL("MeanBackward1"), {{&k.mul_f32, 60}}, "aten::div");
  BackwardNode(t, GPUWHY_EVAL("PowBackward0"), {{&k.pow_f32, 60}, {&k.mul_f32, 60}}, "aten::mul");
  BackwardNode(t, GPUWHY_EVAL("ToCopyBackward0"), {{&k.copy_bf16, 35}}, "aten::_to_copy");
#undef GPUWHY_EVAL
}

}  // namespace

TrainingStep::TrainingStep(const Recipe& recipe, int main_tid, int autograd_tid, int world_size)
    : recipe_(recipe),
      gemm_tn_(recipe.small_batch_gemms ? &Kernels().gemm_tn_small : &Kernels().gemm_tn),
      gemm_nn_(recipe.small_batch_gemms ? &Kernels().gemm_nn_small : &Kernels().gemm_nn),
      gemm_nt_(recipe.small_batch_gemms ? &Kernels().gemm_nt_small : &Kernels().gemm_nt),
      main_tid_(main_tid),
      autograd_tid_(autograd_tid),
      world_size_(world_size) {
  std::string ranks;
  for (int r = 0; r < world_size; ++r) ranks += fmt::format("{}{}", r == 0 ? "" : ", ", r);
  auto args = [&](int64_t nelems) {
    return fmt::format(
        R"(,"Collective name":"allreduce","dtype":"Float","In msg nelems":{},)"
        R"("Out msg nelems":{},"Group size":{},"In split size":"[]","Out split size":"[]",)"
        R"("Global rank start":0,"Global rank stride":1,"Process Group Name":"0",)"
        R"("Process Group Description":"default_pg","Process Group Ranks":"[{}]")",
        nelems, nelems, world_size, ranks);
  };
  bucket_args_ = args(kBucketNelems);
  exposed_args_ = args(recipe.exposed_allreduce_nelems);
}

StepStats TrainingStep::Run(Timeline& t, int number, bool last) {
  t.SetThread(main_tid_);
  t.SetLaunchCost(recipe_.launch_min_ns, recipe_.launch_max_ns);
  t.BeginStep(number);
  step_gemm_ns_ = 0;
  step_number_ = number;
  step_one_off_ns_ = 0;
  const bool training = recipe_.workload == Workload::kTraining;
  const bool warmup = first_step_ && recipe_.warmup.enabled();
  if (warmup) Initialize(t);
  t.Begin(recipe_.dataloader_name, EventCat::kUserAnnotation);
  t.Advance(warmup && recipe_.warmup.first_dataloader_ns > 0 ? recipe_.warmup.first_dataloader_ns
                                                             : recipe_.dataloader_ns);
  t.End();
  HostWork(t, 20000, 40000);
  CopyBatch(t);
  Forward(t);
  if (training) {
    HostWork(t, 20000, 35000);  // loss.backward() from Python
    t.SetThread(autograd_tid_);
    Backward(t);
    t.SetThread(main_tid_);
    if (recipe_.exposed_allreduce) {
      // Gradients reduced by hand after backward: nothing is left to overlap with.
      AllReduce(t, exposed_args_, recipe_.exposed_allreduce_ns);
    }
    if (world_size_ > 1) t.StreamWaitStream(kComputeStream, kCommStream);
    Optimizer(t);
  } else {
    t.Allocate(-(6ll << 30));  // no_grad: the activations go as soon as the loss is computed
  }
  ItemSync(t, 0);  // loss.item() for logging
  if (recipe_.host_preprocess_ns > 0) Preprocess(t);
  t.Allocate(-recipe_.batch_bytes);
  HostWork(t, 15000, 30000);
  // The profiler stops after the last step's work: its flush shows as host time with no
  // GPU work before the step's end.
  if (last) t.Advance(recipe_.last_step_flush_ns);
  if (last && recipe_.teardown.in_last_step) {
    step_one_off_ns_ += WriteTeardownTail(t, recipe_.teardown);
  }
  first_step_ = false;
  StepStats stats = t.EndStep();
  stats.one_off_ns = step_one_off_ns_;
  stats.gemm_ns = step_gemm_ns_;
  stats.memory_bound_ns = t.StepKernelNs(IsMemoryBoundKernel);
  const KernelCatalog& k = Kernels();
  stats.softmax_ns = t.StepKernelNs(
      [&](const KernelSpec* s) { return s == &k.softmax_fwd || s == &k.softmax_bwd; });
  stats.kernel_ns = t.StepKernelNs([](const KernelSpec*) { return true; });
  return stats;
}

void TrainingStep::Norm(Timeline& t) {
  if (recipe_.eager_rms_norm) return EagerRmsNorm(t);
  FusedLayerNorm(t);
}

void TrainingStep::NormBackward(Timeline& t) {
  if (recipe_.eager_rms_norm) return EagerRmsNormBackward(t);
  const KernelCatalog& k = Kernels();
  BackwardNode(t, "autograd::engine::evaluate_function: NativeLayerNormBackward0",
               "NativeLayerNormBackward0",
               {{&k.layer_norm_bwd_input, 22}, {&k.layer_norm_bwd_gamma_beta, 18}},
               "aten::native_layer_norm_backward");
}

void TrainingStep::CopyBatch(Timeline& t) {
  t.Allocate(recipe_.batch_bytes);
  t.Begin("aten::to");
  HostWork(t, 2000, 4000);
  t.Begin("aten::_to_copy");
  HostWork(t, 2000, 4000);
  t.Begin("aten::empty_strided");
  HostWork(t, 2000, 3000);
  t.End();
  t.Begin("aten::copy_");
  HostWork(t, 2000, 4000);
  t.MemcpyAsync(recipe_.pageable_batch ? "Memcpy HtoD (Pageable -> Device)"
                                       : "Memcpy HtoD (Pinned -> Device)",
                recipe_.batch_bytes, recipe_.batch_copy_ns, recipe_.pageable_batch);
  HostWork(t, 1000, 2000);
  t.End();
  t.End();
  t.End();
}

void TrainingStep::Initialize(Timeline& t) {
  const WarmupPhase& w = recipe_.warmup;
  HostWork(t, 200000, 400000);  // imports, argument parsing
  t.RuntimeCall("cudaGetDeviceCount", kCbidGetDeviceCount, 12 * kNsPerUs);
  // The first call that needs the device creates the primary context.
  if (w.context_ns > 0) {
    t.RuntimeCall("cudaDeviceGetStreamPriorityRange", kCbidStreamPriorityRange, w.context_ns);
    t.RuntimeCall("cudaStreamCreateWithPriority", kCbidStreamCreateWithPriority, 9 * kNsPerUs);
  }
  // model.to("cuda") and the optimizer's state: the caching allocator's first segments.
  for (int i = 0; i < w.mallocs; ++i) {
    t.RuntimeCall("cudaMalloc", kCbidMalloc, w.malloc_ns);
    HostWork(t, 100000, 200000);
    if (i % 4 == 3) t.RuntimeCall("cudaFree", kCbidFree, w.malloc_ns);
  }
  cublas_init_ns_ = w.cublas_init_ns;
  // The job's first kernel launch loads the CUDA module (CUDA_MODULE_LOADING=LAZY).
  if (w.module_load_ns > 0) t.SetNextLaunchCost(w.module_load_ns);
}

// aten::conv2d → aten::convolution → aten::_convolution → aten::cudnn_convolution. With
// cudnn.benchmark the first call times candidate algorithms, each behind an event sync.
void TrainingStep::ConvStem(Timeline& t) {
  const KernelCatalog& k = Kernels();
  t.Begin("aten::conv2d");
  HostWork(t, 2000, 4000);
  t.Begin("aten::convolution");
  HostWork(t, 1500, 3000);
  t.Begin("aten::_convolution");
  HostWork(t, 1500, 3000);
  t.Begin("aten::cudnn_convolution");
  HostWork(t, 4000, 8000);
  if (first_step_) {
    for (int i = 0; i < recipe_.warmup.autotune_trials; ++i) {
      t.Launch(i % 2 == 0 ? k.conv_fprop_trial : k.conv_fprop,
               t.rng().Jitter(recipe_.warmup.autotune_trial_ns, 20));
      t.EventSynchronize();
      HostWork(t, 20000, 40000);  // cudnnFind bookkeeping
    }
  }
  t.Launch(k.conv_fprop, Gpu(t, 85));
  HostWork(t, 1000, 2000);
  t.End();
  t.End();
  t.End();
  t.End();
}

void TrainingStep::ConvStemBackward(Timeline& t) {
  BackwardNode(t, "autograd::engine::evaluate_function: ConvolutionBackward0",
               "ConvolutionBackward0", {{&Kernels().conv_wgrad, 120}},
               "aten::convolution_backward");
}

// A transformers image processor on the next sample, on the main thread: PIL decode and
// resize, then rescale and normalize as CPU tensors. Exactly host_preprocess_ns.
void TrainingStep::Preprocess(Timeline& t) {
  const DurationNs total = recipe_.host_preprocess_ns;
  const TimeNs end = t.now() + total;
  auto part = [&](int per_mille) { return total * per_mille / 1000; };
  t.Begin("transformers/image_processing_utils.py(41): __call__", EventCat::kPythonFunction);
  t.Advance(part(20));
  t.Begin("PIL/Image.py(2205): resize", EventCat::kPythonFunction);
  t.Advance(part(280));
  t.End();
  t.Begin("transformers/image_transforms.py(349): resize", EventCat::kPythonFunction);
  t.Advance(part(10));
  t.Begin("aten::upsample_bilinear2d");
  t.Advance(part(230));
  t.End();
  t.End();
  t.Begin("aten::to");
  t.Advance(part(10));
  t.Begin("aten::_to_copy");
  t.Advance(part(10));
  t.Begin("aten::copy_");
  t.Advance(part(130));
  t.End();
  t.End();
  t.End();
  t.Begin("transformers/image_transforms.py(388): normalize", EventCat::kPythonFunction);
  t.Advance(part(10));
  t.Begin("aten::sub");
  t.Advance(part(100));
  t.End();
  t.Begin("aten::div");
  t.Advance(part(100));
  t.End();
  t.End();
  t.Advance(end - t.now());
  t.End();
}

// A TorchScript function (pairwise features of the inputs): its first ops, then each fusion
// group as a fused__ op launching its NNC kernel through the driver API. In compile_step the
// inputs have a new shape: the profiling executor specialises the graph and compiles each new
// kernel with nothing recorded on the host, right before that kernel's first launch.
void TrainingStep::ScriptedCall(Timeline& t) {
  const ScriptedFunction& f = recipe_.scripted;
  const KernelCatalog& k = Kernels();
  const int groups = std::clamp(f.fusion_groups, 1, KernelCatalog::kMaxFusionGroups);
  const bool compiling = step_number_ == f.compile_step && f.compile_ns > 0;
  const int specialisation = step_number_ >= f.compile_step ? 1 : 0;
  t.Begin("pair_delta_r2");
  HostWork(t, 8000, 15000);
  KernelOp(t, "aten::sub", k.add_bf16, 6);
  for (int g = 0; g < groups; ++g) {
    if (compiling) {
      // Exact: the groups share compile_ns, the last takes the rounding.
      DurationNs share = f.compile_ns / groups;
      if (g == groups - 1) share = f.compile_ns - share * (groups - 1);
      t.Advance(share);
      step_one_off_ns_ += share;
    }
    t.Begin("fallback_function");
    HostWork(t, 10000, 20000);
    t.Begin(k.scripted_fused[specialisation * KernelCatalog::kMaxFusionGroups + g].name);
    HostWork(t, 15000, 30000);
    t.DriverLaunch(k.scripted_fused[specialisation * KernelCatalog::kMaxFusionGroups + g],
                   Gpu(t, 18));
    HostWork(t, 3000, 6000);
    t.End();
    t.End();
    KernelOp(t, "aten::remainder", k.add_bf16, 5);
  }
  t.End();
}

void TrainingStep::Forward(Timeline& t) {
  const KernelCatalog& k = Kernels();
  if (recipe_.scripted.enabled) ScriptedCall(t);
  if (recipe_.conv_stem) ConvStem(t);
  t.Begin("aten::embedding");
  HostWork(t, 3000, 5000);
  KernelOp(t, "aten::index_select", k.index_select, 45);
  t.End();
  int sync_every = recipe_.mid_step_syncs > 0 ? recipe_.layers / recipe_.mid_step_syncs : 0;
  for (int layer = 0; layer < recipe_.layers; ++layer) {
    Norm(t);
    step_gemm_ns_ += Linear(t, *gemm_tn_, 95, &cublas_init_ns_);
    Attention(t);
    step_gemm_ns_ += Linear(t, *gemm_tn_, 42);
    KernelOp(t, "aten::add", k.add_bf16, 10);
    Norm(t);
    step_gemm_ns_ += Linear(t, *gemm_tn_, 165);
    KernelOp(t, "aten::gelu", k.gelu_fwd, 24);
    step_gemm_ns_ += Linear(t, *gemm_tn_, 160);
    KernelOp(t, "aten::add", k.add_bf16, 10);
    if (sync_every > 0 && (layer + 1) % sync_every == 0) {
      ItemSync(t, recipe_.host_work_after_sync_ns);  // e.g. a NaN check on activations
    }
  }
  Norm(t);
  step_gemm_ns_ += Linear(t, *gemm_tn_, 620);
  t.Begin("aten::cross_entropy_loss");
  HostWork(t, 2000, 4000);
  KernelOp(t, "aten::_log_softmax", k.softmax_fwd, 180);
  KernelOp(t, "aten::nll_loss_forward", k.nll_loss_fwd, 6);
  t.End();
  t.Allocate(6ll << 30);  // activations kept for backward
}

void TrainingStep::Backward(Timeline& t) {
  const KernelCatalog& k = Kernels();
  BackwardNode(t, "autograd::engine::evaluate_function: NllLossBackward0", "NllLossBackward0",
               {{&k.nll_loss_bwd, 8}}, "aten::nll_loss_backward");
  BackwardNode(t, "autograd::engine::evaluate_function: LogSoftmaxBackward0", "LogSoftmaxBackward0",
               {{&k.softmax_bwd, 190}}, "aten::_log_softmax_backward_data");
  step_gemm_ns_ += BackwardNode(t, "autograd::engine::evaluate_function: AddmmBackward0",
                                "AddmmBackward0", {{gemm_nn_, 610}, {gemm_nt_, 640}});
  NormBackward(t);
  bool overlapped_comm = world_size_ > 1 && !recipe_.exposed_allreduce;
  for (int layer = recipe_.layers - 1; layer >= 0; --layer) {
    const char* addmm = "autograd::engine::evaluate_function: AddmmBackward0";
    step_gemm_ns_ += BackwardNode(t, addmm, "AddmmBackward0", {{gemm_nn_, 160}, {gemm_nt_, 170}});
    BackwardNode(t, "autograd::engine::evaluate_function: GeluBackward0", "GeluBackward0",
                 {{&k.gelu_bwd, 36}}, "aten::gelu_backward");
    step_gemm_ns_ += BackwardNode(t, addmm, "AddmmBackward0", {{gemm_nn_, 165}, {gemm_nt_, 175}});
    NormBackward(t);
    step_gemm_ns_ += BackwardNode(t, addmm, "AddmmBackward0", {{gemm_nn_, 42}, {gemm_nt_, 45}});
    BackwardNode(t, "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
                 "ScaledDotProductFlashAttentionBackward0", {{&k.flash_bwd, 380}},
                 "aten::_flash_attention_backward");
    step_gemm_ns_ += BackwardNode(t, addmm, "AddmmBackward0", {{gemm_nn_, 95}, {gemm_nt_, 100}});
    NormBackward(t);
    BackwardNode(t, "autograd::engine::evaluate_function: AddBackward0", "AddBackward0",
                 {{&k.add_bf16, 10}}, "aten::add");
    // DDP reduces a bucket as soon as its gradients are ready, overlapping backward.
    if (overlapped_comm && (layer == recipe_.layers * 2 / 3 || layer == recipe_.layers / 3)) {
      AllReduce(t, bucket_args_, t.rng().Jitter(kBucketAllReduceNs, 30));
    }
  }
  if (recipe_.conv_stem) ConvStemBackward(t);
  t.Begin("autograd::engine::evaluate_function: EmbeddingBackward0");
  HostWork(t, 2000, 4000);
  t.Begin("aten::zero_");
  HostWork(t, 1000, 2000);
  t.MemsetAsync(311164928, 130 * kNsPerUs);
  t.End();
  KernelOp(t, "aten::embedding_dense_backward", k.embedding_bwd, 80);
  t.End();
  t.Allocate(-(6ll << 30));
}

void TrainingStep::Optimizer(Timeline& t) {
  const KernelCatalog& k = Kernels();
  if (recipe_.unfused_optimizer_params > 0) {
    // foreach=False SGD with momentum: two tiny kernels per parameter tensor.
    t.Begin("Optimizer.step#SGD.step", EventCat::kUserAnnotation);
    HostWork(t, 10000, 20000);
    for (int p = 0; p < recipe_.unfused_optimizer_params; ++p) {
      for (const KernelSpec* spec : {&k.mul_scalar_f32, &k.add_f32}) {
        t.Begin(spec == &k.add_f32 ? "aten::add_" : "aten::mul_");
        HostWork(t, 1500, 3000);
        t.Launch(*spec, t.rng().Uniform(recipe_.tiny_kernel_min_ns, recipe_.tiny_kernel_max_ns));
        HostWork(t, 500, 1000);
        t.End();
      }
    }
    t.End();
  } else {
    t.Begin("Optimizer.step#AdamW.step", EventCat::kUserAnnotation);
    HostWork(t, 15000, 30000);
    t.Begin("aten::_fused_adamw_");
    HostWork(t, 5000, 10000);
    for (int chunk = 0; chunk < 4; ++chunk) {
      t.Launch(k.fused_adamw, Gpu(t, 310));
      HostWork(t, 1000, 2000);
    }
    t.End();
    t.End();
  }
  t.Begin("Optimizer.zero_grad#AdamW.zero_grad", EventCat::kUserAnnotation);
  HostWork(t, 30000, 50000);  // set_to_none: no kernels
  t.End();
}

void TrainingStep::ItemSync(Timeline& t, DurationNs host_work_after) {
  t.Begin("aten::item");
  HostWork(t, 2000, 4000);
  t.Begin("aten::_local_scalar_dense");
  HostWork(t, 2000, 4000);
  t.MemcpyAsync("Memcpy DtoH (Device -> Pinned)", 4, 1500, false);
  t.StreamSynchronize(kComputeStream);
  HostWork(t, 1000, 2000);
  t.End();
  t.End();
  t.Advance(host_work_after);
}

void TrainingStep::AllReduce(Timeline& t, const std::string& args, DurationNs kernel_ns) {
  t.Begin("c10d::allreduce_");
  HostWork(t, 5000, 9000);
  t.Begin("record_param_comms", EventCat::kCpuOp, args);
  HostWork(t, 6000, 12000);
  // NCCL's stream waits for the gradients the compute stream is producing.
  t.StreamWaitStream(kCommStream, kComputeStream);
  t.Begin("nccl:all_reduce", EventCat::kUserAnnotation);
  HostWork(t, 2000, 4000);
  t.Launch(Kernels().nccl_all_reduce, kernel_ns, kCommStream, args);
  HostWork(t, 2000, 4000);
  t.End();
  t.End();
  t.End();
}

}  // namespace gpuwhy
