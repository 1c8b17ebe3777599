// Convolution FLOPs from the shapes and scalar arguments record_shapes=True stores: "Input
// Dims" gives the input and weight shapes, PyTorch 2.x's "Concrete Inputs" the stride, padding,
// dilation and transposed flag that set the output size. Formulas: docs/metrics/flops.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy {

// Whether |op_name| is a convolution op ConvolutionFlops knows the argument order of.
bool IsConvolutionOp(std::string_view op_name);

// 2 · N · K · (C/groups) · ∏kernel · ∏output spatial for a forward convolution (input [N,C,...],
// weight [K,C/groups,...]); a transposed one scatters each input pixel: ∏input spatial instead.
// convolution_backward: the forward's count once per gradient its output_mask asks for (input,
// weight; the bias gradient is a sum). nullopt when the shapes or arguments do not fit.
std::optional<double> ConvolutionFlops(std::string_view op_name,
                                       const std::vector<std::vector<int64_t>>& dims,
                                       const std::vector<std::string>& concrete);

}  // namespace gpuwhy
