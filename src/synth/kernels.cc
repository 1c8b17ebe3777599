#include "synth/kernels.h"

#include <fmt/format.h>

#include <deque>
#include <string>

namespace gpuwhy {
namespace {

KernelCatalog BuildCatalog() {
  KernelCatalog k;
  k.gemm_tn = MakeKernelSpec(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
      "execute_segment_k_off_kernel__5x_cublas",
      132, 384, 168, 231424, 1.0, 12.0, 0);
  k.gemm_nn = MakeKernelSpec(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_"
      "execute_segment_k_off_kernel__5x_cublas",
      132, 384, 168, 213008, 1.0, 12.0, 0);
  k.gemm_nt = MakeKernelSpec(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_"
      "execute_segment_k_off_kernel__5x_cublas",
      132, 384, 168, 213008, 1.0, 12.0, 0);
  k.gemm_tn_small = MakeKernelSpec(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_"
      "execute_segment_k_off_kernel__5x_cublas",
      33, 128, 168, 98304, 0.25, 1.0, 2);
  k.gemm_nn_small = MakeKernelSpec(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize64x64x64_warpgroupsize1x1x1_"
      "execute_segment_k_off_kernel__5x_cublas",
      33, 128, 168, 98304, 0.25, 1.0, 2);
  k.gemm_nt_small = MakeKernelSpec(
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize64x64x64_warpgroupsize1x1x1_"
      "execute_segment_k_off_kernel__5x_cublas",
      33, 128, 168, 98304, 0.25, 1.0, 2);
  k.flash_fwd = MakeKernelSpec(
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, "
      "4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, "
      "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>"
      "(pytorch_flash::Flash_fwd_params)",
      256, 128, 255, 49152, 1.939394, 7.757576, 6);
  k.flash_bwd = MakeKernelSpec(
      "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::"
      "Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 2, 2, false, false, cutlass::bfloat16_t, "
      "pytorch_flash::Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >, true, false, "
      "false, false, false, true, false, false>(pytorch_flash::Flash_bwd_params)",
      256, 256, 255, 98304, 1.939394, 15.515152, 12);
  k.layer_norm_fwd = MakeKernelSpec(
      "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>"
      "(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
      "float*, c10::BFloat16*)",
      8192, 128, 30, 0, 62.060608, 248.242432, 100);
  k.layer_norm_bwd_input = MakeKernelSpec(
      "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<"
      "c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, "
      "float const*, c10::BFloat16 const*, c10::BFloat16*, int)",
      8192, 128, 40, 64, 62.060608, 248.242432, 100);
  k.layer_norm_bwd_gamma_beta = MakeKernelSpec(
      "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, "
      "float>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, "
      "c10::BFloat16*, c10::BFloat16*)",
      32, 1024, 32, 8448, 0.242424, 7.757576, 50);
  k.gelu_fwd = MakeKernelSpec(
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
      "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
      "{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, "
      "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
      "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
      "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
      65536, 128, 26, 0, 496.484863, 1985.939453, 100);
  k.gelu_bwd = MakeKernelSpec(
      "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl("
      "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
      "{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, "
      "std::array<char*, 3ul> >(int, at::native::GeluBackwardCUDAKernelImpl("
      "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
      "{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, "
      "std::array<char*, 3ul>)",
      65536, 128, 30, 0, 496.484863, 1985.939453, 100);
  k.add_bf16 = MakeKernelSpec(
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
      "c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
      "std::array<char*, 3ul>)",
      16384, 128, 22, 0, 124.121216, 496.484863, 100);
  k.copy_bf16 = MakeKernelSpec(
      "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda("
      "at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
      "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, "
      "std::array<char*, 2ul>)",
      17888, 128, 16, 0, 135.515152, 542.060608, 100);
  k.index_select = MakeKernelSpec(
      "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, "
      "unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
      "at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, "
      "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, "
      "unsigned int, long)",
      4096, 128, 32, 0, 31.030304, 124.121216, 100);
  k.embedding_bwd = MakeKernelSpec(
      "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, "
      "float, long>(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int, int)",
      256, 1024, 40, 8192, 1.939394, 62.060608, 50);
  k.softmax_fwd = MakeKernelSpec(
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
      "float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, "
      "c10::BFloat16 const*, int)",
      8192, 1024, 32, 64, 62.060608, 1985.939453, 96);
  k.softmax_bwd = MakeKernelSpec(
      "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
      "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, "
      "float const*, int)",
      8192, 1024, 32, 64, 62.060608, 1985.939453, 95);
  k.nll_loss_fwd = MakeKernelSpec(
      "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
      "float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, "
      "long, long)",
      1, 32, 28, 256, 0.007576, 0.007576, 1);
  k.nll_loss_bwd = MakeKernelSpec(
      "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, "
      "long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, "
      "long)",
      1, 32, 24, 0, 0.007576, 0.007576, 1);
  k.fused_adamw = MakeKernelSpec(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
      "(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::"
      "(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, "
      "double*, double, double, double, double, double, bool, double*, double*>(at::native::"
      "(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::"
      "(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, "
      "double*, double, double, double, double, double, bool, double*, double*)",
      1280, 512, 64, 0, 9.696970, 155.151520, 75);
  k.mul_scalar_f32 = MakeKernelSpec(
      "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
      "float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
      "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<"
      "float> >, std::array<char*, 2ul>)",
      24, 128, 20, 0, 0.181818, 0.727273, 1);
  k.add_f32 = MakeKernelSpec(
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
      24, 128, 22, 0, 0.181818, 0.727273, 1);
  k.nccl_all_reduce =
      MakeKernelSpec("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, ncclDevKernelArgs*)",
                     24, 640, 96, 87568, 0.181818, 3.636364, 0);
  // fp32 activations of 8 x 1024 tokens x 2048: 65536 blocks of 128 threads, full occupancy.
  // KernelSpec holds a view: the built names live as long as the catalog (forever).
  static auto* names = new std::deque<std::string>;
  auto eager = [](std::string_view functor, int arrays) {
    names->push_back(
        fmt::format("void at::native::vectorized_elementwise_kernel<4, {}, "
                    "std::array<char*, {}ul> >(int, {}, std::array<char*, {}ul>)",
                    functor, arrays, functor, arrays));
    return MakeKernelSpec(names->back(), 65536, 128, 24, 0, 496.484863, 1985.939453, 100);
  };
  k.copy_to_f32 = eager(
      "at::native::(anonymous namespace)::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
      "{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::"
      "{lambda(c10::BFloat16)#1}",
      2);
  k.pow_f32 = eager(
      "at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>("
      "at::TensorIteratorBase&, float)::{lambda(float)#1}",
      2);
  k.add_scalar_f32 = eager(
      "at::native::AUnaryFunctor<float, float, float, at::native::CUDAFunctor_add<float> >", 2);
  k.rsqrt_f32 = eager(
      "at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::"
      "{lambda()#2}::operator()() const::{lambda(float)#1}",
      2);
  k.mul_f32 = eager(
      "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<"
      "float> >",
      3);
  auto reduce = [](std::string_view op) {
    names->push_back(
        fmt::format("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<"
                    "float, {}, unsigned int, float, 4> >(at::native::ReduceOp<"
                    "float, {}, unsigned int, float, 4>)",
                    op, op));
    return MakeKernelSpec(names->back(), 8192, 512, 32, 16, 62.060608, 992.969727, 100);
  };
  k.mean_f32 = reduce("at::native::MeanOps<float, float, float, float>");
  k.sum_f32 = reduce(
      "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::"
      "operator()(at::TensorIterator&)::{lambda(float, float)#1}>");
  k.conv_fprop = MakeKernelSpec(
      "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
      "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
      132, 384, 168, 231424, 1.0, 12.0, 0);
  k.conv_fprop_trial = MakeKernelSpec(
      "sm80_xmma_fprop_implicit_gemm_indexed_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x128x32_"
      "stage5_warpsize2x2x1_g1_tensor16x8x16_kernel",
      528, 128, 128, 61440, 4.0, 16.0, 25);
  k.conv_wgrad = MakeKernelSpec(
      "sm90_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_"
      "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn",
      132, 384, 168, 231424, 1.0, 12.0, 0);
  // NNC names a fusion group after its ops and a hash of the specialised graph.
  for (size_t i = 0; i < k.scripted_fused.size(); ++i) {
    names->push_back(fmt::format("fused__autocast_to__{}", 15680171862954066917ull - 7919 * i));
    k.scripted_fused[i] = MakeKernelSpec(names->back(), 512, 512, 18, 0, 3.878788, 62.060608, 97);
  }
  names->push_back(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, "
      "at::native::ArgMaxOps<c10::BFloat16>, unsigned int, long, 4> >(at::native::ReduceOp<"
      "c10::BFloat16, at::native::ArgMaxOps<c10::BFloat16>, unsigned int, long, 4>)");
  k.argmax = MakeKernelSpec(names->back(), 64, 512, 32, 16, 0.484848, 7.757576, 12);
  return k;
}

}  // namespace

const KernelCatalog& Kernels() {
  static const KernelCatalog* catalog = new KernelCatalog(BuildCatalog());
  return *catalog;
}

bool IsMemoryBoundKernel(const KernelSpec* spec) {
  const KernelCatalog& k = Kernels();
  for (const KernelSpec* m :
       {&k.layer_norm_fwd, &k.layer_norm_bwd_input, &k.layer_norm_bwd_gamma_beta, &k.gelu_fwd,
        &k.gelu_bwd, &k.add_bf16, &k.copy_bf16, &k.index_select, &k.nll_loss_fwd, &k.nll_loss_bwd,
        &k.mul_scalar_f32, &k.add_f32, &k.copy_to_f32, &k.pow_f32, &k.mean_f32, &k.add_scalar_f32,
        &k.rsqrt_f32, &k.mul_f32, &k.sum_f32}) {
    if (spec == m) return true;
  }
  return false;
}

}  // namespace gpuwhy
