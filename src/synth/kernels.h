// Kernel names and launch shapes as PyTorch 2.x on an H100 records them (bf16
// transformer training: cuBLAS sm90 GEMMs, FlashAttention, ATen elementwise kernels,
// fused AdamW, NCCL). Built once; the names need no JSON escaping.
#pragma once

#include <array>

#include "synth/kineto_writer.h"

namespace gpuwhy {

struct KernelCatalog {
  KernelSpec gemm_tn;  // forward linear
  KernelSpec gemm_nn;  // backward: grad input
  KernelSpec gemm_nt;  // backward: grad weight
  // The same GEMMs of a per-GPU batch too small for the device: 33 blocks on 132 SMs.
  KernelSpec gemm_tn_small;
  KernelSpec gemm_nn_small;
  KernelSpec gemm_nt_small;
  KernelSpec flash_fwd;
  KernelSpec flash_bwd;
  KernelSpec layer_norm_fwd;
  KernelSpec layer_norm_bwd_input;
  KernelSpec layer_norm_bwd_gamma_beta;
  KernelSpec gelu_fwd;
  KernelSpec gelu_bwd;
  KernelSpec add_bf16;
  KernelSpec copy_bf16;
  KernelSpec index_select;
  KernelSpec embedding_bwd;
  KernelSpec softmax_fwd;
  KernelSpec softmax_bwd;
  KernelSpec nll_loss_fwd;
  KernelSpec nll_loss_bwd;
  KernelSpec fused_adamw;
  KernelSpec mul_scalar_f32;  // unfused optimizer, one per parameter
  KernelSpec add_f32;
  KernelSpec nccl_all_reduce;
  // An RMSNorm written in eager PyTorch, in fp32: one kernel per op (memory-bound-elementwise).
  KernelSpec copy_to_f32;
  KernelSpec pow_f32;
  KernelSpec mean_f32;
  KernelSpec add_scalar_f32;
  KernelSpec rsqrt_f32;
  KernelSpec mul_f32;
  KernelSpec sum_f32;
  // A cuDNN patch-embedding convolution (conv_stem) and what cudnn.benchmark also tries.
  KernelSpec conv_fprop;
  KernelSpec conv_fprop_trial;
  KernelSpec conv_wgrad;
  // TorchScript fusion groups of a scripted function, launched with cuLaunchKernel: group g of
  // input-shape specialisation s is scripted_fused[s * kMaxFusionGroups + g].
  static constexpr int kMaxFusionGroups = 4;
  std::array<KernelSpec, 2 * kMaxFusionGroups> scripted_fused;
  KernelSpec argmax;  // greedy sampling of a decode step
};

const KernelCatalog& Kernels();

// The catalog's elementwise, normalization and reduction kernels (softmax aside), by the ATen
// op that launches them: the memory-bound kernel time the ground truth counts.
bool IsMemoryBoundKernel(const KernelSpec* spec);

}  // namespace gpuwhy
