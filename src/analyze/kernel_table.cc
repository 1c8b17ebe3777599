// The kernel-name table. Rows are tried in order and the first match wins, so narrow rows
// (bookkeeping kernels that carry GEMM words, SIMT markers) come before the broad ones. Every
// row was checked against the kernel names of ../shared/data (tests/data/kernel_classes.tsv).
//
// Pattern syntax, matched against the lower-cased name: terms joined by '&' must all hold; a term
// lists alternatives joined by '|'; '!' before a term negates it; '^' before an alternative
// anchors it at the start of the name (after a demangled "void ").
#include "analyze/kernel_table.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

namespace gpuwhy {
namespace {

using C = KernelClass;
using M = MathPath;
using D = KernelDtype;

struct Row {
  std::string_view pattern;
  KernelClass kernel_class;
  MathPath math;
  std::optional<KernelDtype> dtype;  // nullopt: read the dtype from the name (DtypeFromName)
  std::string_view why;
};

constexpr std::optional<KernelDtype> kFromName = std::nullopt;

// clang-format off
constexpr std::array kRows = std::to_array<Row>({
  // Triton Inductor names a kernel by its kind, then by the ATen ops it fused: the kind decides,
  // so "triton_red_fused_..._native_layer_norm" is a reduction and "triton_poi_fused_..._fmha_..."
  // (the rotary/cat feeding an attention call) is pointwise, whatever ops the name lists.
  {"^triton_poi", C::kElementwise, M::kSimt, kFromName, "Inductor pointwise fusion"},
  {"^triton_red|^triton_per", C::kReduction, M::kSimt, kFromName, "Inductor reduction / persistent-reduction fusion"},
  {"^triton__", C::kElementwise, M::kSimt, kFromName,
   "PyTorch 2.0 Inductor fusion named by its arguments only: memory-bound pointwise or reduction (2.0 ran matmuls on cuBLAS)"},

  // Copies and memsets launched as kernels.
  {"memcpy|memset", C::kCopy, M::kSimt, kFromName, "memcpy/memset kernels (e.g. Triton MoE routing memset)"},

  // Communication: every library that moves data between GPUs.
  {"nccl|rccl", C::kCommunication, M::kSimt, kFromName, "NCCL/RCCL device kernels (ncclDevKernel_*, ncclKernel_*)"},
  {"deep_ep", C::kCommunication, M::kSimt, D::kUnknown, "DeepEP MoE dispatch/combine/notify kernels (namespace deep_ep)"},
  {"nvshmem", C::kCommunication, M::kSimt, D::kUnknown, "NVSHMEM put/get/barrier kernels"},
  {"multimem", C::kCommunication, M::kSimt, kFromName, "symmetric-memory all-reduce on NVLS multimem.ld_reduce (torch symm_mem)"},
  {"cross_device_reduce", C::kCommunication, M::kSimt, kFromName, "vLLM custom all-reduce (cross_device_reduce_1stage/2stage)"},
  {"allreduce|all_reduce|allgather|all_gather|reducescatter|reduce_scatter|alltoall|all_to_all",
   C::kCommunication, M::kSimt, kFromName, "custom collectives: TRT-LLM allreduce_fusion/oneShotAllReduce, torch symm_mem one/two_shot_all_reduce, quick all-reduce"},
  {"mscclpp|userbuffers", C::kCommunication, M::kSimt, kFromName, "MSCCL++ and Transformer Engine userbuffers (comm-GEMM overlap) kernels"},

  // Bookkeeping kernels whose names carry GEMM, attention or reduce words.
  {"offsetskernel|compute_gemm_pointers", C::kOther, M::kSimt, kFromName, "cuDNN/CASK/cuBLAS launch set-up: index arithmetic, microseconds"},
  {"kv_indices", C::kOther, M::kSimt, kFromName, "FlashInfer KV index building (a Triton helper, not attention)"},
  {"reshape_and_cache|store_kvcache", C::kElementwise, M::kSimt, kFromName, "KV-cache writes (vLLM, SGLang): scatter copies"},
  {"splitkreduce|reducesplitk|reduce_1block_kernel|finalize_matmul", C::kReduction, M::kSimt, kFromName,
   "sums after a GEMM: cuBLAS/CUTLASS split-K reduction, Triton MoE finalize (top-k scatter-add)"},
  {"epilogue::impl::globalkernel", C::kElementwise, M::kSimt, kFromName, "cuBLASLt stand-alone epilogue (bias, activation)"},
  {"subtensorop", C::kElementwise, M::kSimt, kFromName, "MIOpen tensor ops (SubTensorOpWith*): 'TensorOp' here is not a tensor core"},
  {"batched_transpose|nchwtonhwc|nhwctonchw|scalepackedtensor|scal_kernel", C::kElementwise, M::kSimt, kFromName,
   "layout transposes and scaling (MIOpen batched_transpose, cuDNN nchwToNhwc, cuBLAS scal)"},

  // Attention.
  {"paged_attention&reduce_kernel", C::kAttention, M::kSimt, kFromName, "paged attention's cross-partition reduce: no MMA"},
  {"flash|fmha|attention|attn|sdpa|mha_|mmha|xqa|pagedkvcache|prefillwith|decodewith", C::kAttention, M::kTensorCore, kFromName,
   "fused attention: FlashAttention 2/3 (flash_fwd_kernel, FlashAttnBwdSm90), cuDNN/CK fmha, vLLM/Triton attention, FlashInfer, TRT-LLM xqa/mmha"},

  // Convolution: tensor-core kernels first, then the CUDA-core algorithms, then the rest.
  {"^_zn2ck&conv&xdl|wmma|mfma", C::kConvolution, M::kTensorCore, kFromName, "Composable Kernel grouped conv on xdlops (MFMA)"},
  {"igemm_fwd_gtcx|igemm_bwd_gtcx|igemm_wrw_gtcx", C::kConvolution, M::kTensorCore, kFromName, "MIOpen implicit-GEMM conv on xdlops (gtcx = GEMM tensor core, xdlops)"},
  {"xmma&ffma&!tf32&!f16&!hmma&fprop|dgrad|wgrad|conv", C::kConvolution, M::kSimt, kFromName, "cuDNN xmma conv on FFMA: CUDA-core fp32"},
  {"fprop|dgrad|wgrad|implicit_gemm|convol|conv2d|conv3d|winograd&xmma|tensorop|884|1688|16816|hmma|wgmma|tcgen05|tensor16x8",
   C::kConvolution, M::kTensorCore, kFromName, "cuDNN/CUTLASS tensor-core conv (sm80_xmma_fprop_*, cutlass_tensorop_s1688fprop/dgrad/wgrad)"},
  {"scudnn|hcudnn|convolve_sgemm|wgrad_alg|dgrad_alg|wgrad_engine|dgrad_engine|fft2d_r2c|fft2d_c2r|flip_filter|winograd|im2col|col2im|im2d2col|im3d2col|reduce_wgrad|depthwise|conv2d_grouped_direct|slow_conv",
   C::kConvolution, M::kSimt, kFromName, "cuDNN CUDA-core conv: scudnn (s = fp32), implicit/explicit_convolve_sgemm, FFT, Winograd, im2col (MIOpen Im2d2Col); depthwise conv"},
  {"convol|conv1d|conv2d|conv3d|conv_fwd|conv_bwd|grouped_conv|fprop|dgrad|wgrad", C::kConvolution, M::kUnknown, kFromName,
   "convolution whose name shows no math path"},

  // Normalization. The TensorIterator reduction (sum/mean/var/norm) is a reduction even when
  // its op is WelfordOps or NormTwoOps, so it sits between batch norm and the other norms.
  {"batch_norm|batchnorm|bn_fw|bn_bw", C::kNormalization, M::kSimt, kFromName, "batch norm (cuDNN bn_fw/bn_bw, at::native batch_norm_*)"},
  {"::reduce_kernel<", C::kReduction, M::kSimt, kFromName, "at::native TensorIterator reduction (sum, mean, max, var, norm)"},
  {"layer_norm|layernorm|gammabetabackward|computegradgammabeta|computepartgradgammabeta|rowwisemoments|fusedparamscudakernel|rmsnorm|rms_norm|group_norm|groupnorm|instance_norm|computeinternalgradients|welford",
   C::kNormalization, M::kSimt, kFromName, "LayerNorm/RMSNorm/GroupNorm forward and backward (GammaBetaBackward, cuComputeGradGammaBeta, layer_norm_grad; GroupNorm's RowwiseMoments, Compute*FusedParams)"},

  // GEMM: the tensor-core families, then CUDA-core fp32/fp16 GEMMs, then the generic words.
  {"deep_gemm", C::kGemm, M::kTensorCore, kFromName, "DeepGEMM FP8/BF16 GEMMs (wgmma/tcgen05)"},
  {"nvjet", C::kGemm, M::kTensorCore, kFromName, "cuBLASLt JIT GEMMs on Hopper/Blackwell (nvjet_*): always MMA"},
  {"^cijk_&_mi4x|_mi16x|_mi32x|_mi64x", C::kGemm, M::kTensorCore, kFromName, "rocBLAS/hipBLASLt Tensile GEMM with a matrix instruction (MI16x16x1 = MFMA)"},
  {"^cijk_", C::kGemm, M::kSimt, kFromName, "Tensile GEMM without a matrix instruction: vector ALUs"},
  {"ck_tile&gemm", C::kGemm, M::kTensorCore, kFromName, "Composable Kernel tile GEMM on MFMA"},
  {"^_zn2ck&gemm&xdl|wmma|mfma", C::kGemm, M::kTensorCore, kFromName, "Composable Kernel GEMM on xdlops (MFMA)"},
  {"matmul_ogs|triton_tem", C::kGemm, M::kTensorCore, kFromName, "Triton GEMMs (triton_kernels matmul_ogs, Inductor mm templates): tl.dot on MMA"},
  {"xmma&ffma&!tf32&!f16&!hmma", C::kGemm, M::kSimt, kFromName, "cuBLAS xmma GEMM on FFMA (…_ffma_…): CUDA-core fp32"},
  {"sgemm|cgemm|dgemm|zgemm|_simt_&!tensorop&!tf32&!xmma", C::kGemm, M::kSimt, kFromName,
   "CUDA-core BLAS GEMMs: volta/ampere_sgemm, magma_sgemmEx, cutlass_80_simt_sgemm, (g)cgemm, dgemm"},
  {"hgemm&!884&!1688&!16816&!tensorop&!xmma", C::kGemm, M::kSimt, kFromName, "fp16 CUDA-core GEMM (maxwell_hgemm)"},
  {"gemv|gemmsn_|gemmk1_kernel|dot_kernel", C::kGemm, M::kSimt, kFromName, "cuBLAS GEMV, small-N, K=1 and dot kernels: CUDA cores"},
  {"xmma|wgmma|tcgen05|umma|hmma|imma|tensorop|wmma|884gemm|1688gemm|16816gemm|h884|s884|i8816|mfma|xdlops|xdl_",
   C::kGemm, M::kTensorCore, kFromName, "tensor-core GEMMs: cuBLAS sm80/sm90 xmma, CUTLASS tensorop/wgmma/tcgen05, volta_h884gemm, AMD MFMA"},
  {"cutlass|gemm|matmul", C::kGemm, M::kUnknown, kFromName, "GEMM whose name shows no math path (mangled CUTLASS templates, custom GEMMs)"},

  // Data movement, embeddings and sparse preprocessing.
  {"spin_kernel|resolve_future_token_ids|compute_position|routing|amp_update_scale", C::kOther, M::kSimt, kFromName,
   "torch.cuda._sleep, SGLang scheduling and positions, MoE routing, AMP GradScaler's scale update: small bookkeeping"},
  {"embedding|bucketize|offsets_range|permute_2d_lengths|to_dense_representation|bounds_check_indices|compute_cuda_kernel",
   C::kOther, M::kSimt, kFromName, "FBGEMM embedding lookups/updates and sparse-feature preprocessing; repeat_interleave's compute kernel"},
  {"multi_tensor_apply|adamfunctor|fusedadam|fusedoptimizer|lambstage", C::kOther, M::kSimt, kFromName,
   "optimizer steps (foreach / fused Adam): memory-bound but already fused, not the elementwise-fusion target"},
  {"topk", C::kReduction, M::kSimt, kFromName, "top-k selection (at::native sbtopk::gatherTopK, radix select): a reduction, not a gather"},
  {"permute|scatter_gather|index|gather|scatter|catarraybatchedcopy|recat_copy", C::kElementwise, M::kSimt, kFromName,
   "gathers, scatters, permutes and cat: memory-bound"},
  {"radixsort|sort_kernel|bitonic|searchsorted", C::kOther, M::kSimt, kFromName, "sorts and searchsorted"},

  // Reductions, softmax, losses, pooling.
  {"softmax|reduce|sum_kernel|_sum_|bitmatrix|argmax|argmin|scan|topk|cumsum|cross_entropy|nll_loss|nllcriterion|pool|qparam",
   C::kReduction, M::kSimt, kFromName, "reductions: softmax, sums, scans, top-k, losses, pooling, FP8 qparam (row max)"},
  {"cub::|rocprim::|hipcub", C::kOther, M::kSimt, kFromName, "other CUB/rocPRIM primitives"},

  // Elementwise.
  {"elementwise|vectorized|unrolled|fill|copy|dropout|rotary|act_and_mul|silu|gelu|relu|where|clamp|quantize|_to_float|to_hfp8|cast|arange|transpose|triu_tril|tril_indices|triu_indices",
   C::kElementwise, M::kSimt, kFromName, "elementwise maps, fills, copies, activations, RNG, quantization, triangular masks/indices"},
});
// clang-format on

bool Contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

// One term: alternatives joined by '|', each optionally anchored with '^'.
bool TermHolds(std::string_view lower, std::string_view term) {
  while (!term.empty()) {
    size_t bar = term.find('|');
    std::string_view alt = term.substr(0, bar);
    if (!alt.empty() && alt[0] == '^' ? lower.starts_with(alt.substr(1)) : Contains(lower, alt))
      return true;
    if (bar == std::string_view::npos) break;
    term.remove_prefix(bar + 1);
  }
  return false;
}

bool Matches(std::string_view lower, std::string_view pattern) {
  while (!pattern.empty()) {
    size_t amp = pattern.find('&');
    std::string_view term = pattern.substr(0, amp);
    bool negate = !term.empty() && term[0] == '!';
    if (TermHolds(lower, negate ? term.substr(1) : term) == negate) return false;
    if (amp == std::string_view::npos) break;
    pattern.remove_prefix(amp + 1);
  }
  return true;
}

// rocBLAS/hipBLASLt Tensile: "Cijk_Ailk_Bjlk_BBS_BH_…": the token after the two index
// tokens starts with the input type (S fp32, D fp64, H fp16, B bf16, X xf32, I8 int8, F8/B8 fp8).
std::optional<KernelDtype> TensileDtype(std::string_view name) {
  size_t at = 0;
  for (int i = 0; i < 3 && at != std::string_view::npos; ++i) at = name.find('_', at + 1);
  if (at == std::string_view::npos || at + 1 >= name.size()) return std::nullopt;
  std::string_view t = name.substr(at + 1);
  if (t.starts_with("F8") || t.starts_with("B8")) return D::kFp8;
  if (t.starts_with("I8") || t.starts_with("4xi8")) return D::kInt8;
  switch (t[0]) {
    case 'S':
    case 'C': return D::kFp32;
    case 'D':
    case 'Z': return D::kFp64;
    case 'H': return D::kFp16;
    case 'B': return D::kBf16;
    case 'X': return D::kTf32;
    default: return std::nullopt;
  }
}

// The lowest-precision type the name states, lowest first so "bf16 x mxfp4" reads fp4 and
// "bfloat16" is not read as "float".
KernelDtype DtypeFromName(std::string_view name, std::string lower) {
  if (name.starts_with("Cijk_")) return TensileDtype(name).value_or(D::kUnknown);
  // Composable Kernel's bhalf_t is an unsigned short, mangled 't' in its type lists ("ttft").
  if (lower.starts_with("_zn2ck") && (Contains(lower, "ttft") || Contains(lower, "tttf")))
    return D::kBf16;
  // vLLM's Fp8KVCacheDataType 0 (kAuto) names an fp8 cache that is not used: blanked in place,
  // one pass, and no token can form across the blank.
  constexpr std::string_view kAutoKvCache = "fp8kvcachedatatype)0";
  for (size_t at = 0; (at = lower.find(kAutoKvCache, at)) != std::string::npos;
       at += kAutoKvCache.size())
    lower.replace(at, kAutoKvCache.size(), kAutoKvCache.size(), ' ');
  struct Token {
    std::string_view alternatives;
    KernelDtype dtype;
  };
  static constexpr std::array<Token, 8> kTokens = {{
      {"mxfp4|nvfp4|fp4|e2m1", D::kFp4},
      {"fp8|e4m3|e5m2|float8|hfp8", D::kFp8},
      {"int8|i8816|imma", D::kInt8},
      {"bf16|bfloat16|df16b|bhalf", D::kBf16},
      {"fp16|f16|float16|half|h884|h1688", D::kFp16},
      {"tf32|tfloat32|xf32|s1688", D::kTf32},
      {"float|f32|fp32|sgemm|cgemm|scudnn", D::kFp32},
      {"double|f64|fp64|dgemm|zgemm", D::kFp64},
  }};
  for (const Token& t : kTokens) {
    if (TermHolds(lower, t.alternatives)) return t.dtype;
  }
  return D::kUnknown;
}

}  // namespace

KernelInfo DescribeKernel(GpuOpKind kind, std::string_view name) {
  if (kind != GpuOpKind::kKernel) {
    return {.kernel_class = C::kCopy, .math = M::kUnknown, .recognised = true};
  }
  name = ClassifiedPart(name);
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // FBGEMM is a library, not a GEMM: its embedding, sparse and quantize kernels carry
  // "fbgemm_gpu::" in their names. Its CUTLASS-based GEMMs still match on cutlass/tensorop.
  // Same length, so each replacement is in place.
  std::string match = lower;
  for (size_t at = 0; (at = match.find("fbgemm", at)) != std::string::npos; at += 6)
    match.replace(at, 6, "fb_lib");
  std::string_view body = match;
  if (body.starts_with("void ")) body.remove_prefix(5);
  for (const Row& row : kRows) {
    if (!Matches(body, row.pattern)) continue;
    KernelDtype dtype = row.dtype ? *row.dtype : DtypeFromName(name, lower);
    return {row.kernel_class, dtype, row.math, true};
  }
  return {};
}

bool IsFp32SimtMatmul(const KernelInfo& info) {
  return (info.kernel_class == C::kGemm || info.kernel_class == C::kConvolution) &&
         info.math == M::kSimt && info.dtype == D::kFp32;
}

std::string_view KernelDtypeName(KernelDtype d) {
  switch (d) {
    case D::kUnknown: return "unknown";
    case D::kFp64: return "fp64";
    case D::kFp32: return "fp32";
    case D::kTf32: return "tf32";
    case D::kFp16: return "fp16";
    case D::kBf16: return "bf16";
    case D::kFp8: return "fp8";
    case D::kFp4: return "fp4";
    case D::kInt8: return "int8";
  }
  return "?";
}

std::string_view MathPathName(MathPath m) {
  switch (m) {
    case M::kUnknown: return "unknown";
    case M::kTensorCore: return "tensor";
    case M::kSimt: return "simt";
  }
  return "?";
}

}  // namespace gpuwhy
