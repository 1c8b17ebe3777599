#include "analyze/conv_flops.h"

#include <algorithm>

#include "model/op_shapes.h"

namespace gpuwhy {
namespace {

using Dims = std::vector<std::vector<int64_t>>;

// Where each op keeps its arguments (native_functions.yaml); -1: the op has none.
struct ConvArgs {
  std::string_view op;
  int stride, padding, dilation, transposed, groups;
};

constexpr ConvArgs kConvArgs[] = {
    // conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups)
    {"aten::conv1d", 3, 4, 5, -1, 6},
    {"aten::conv2d", 3, 4, 5, -1, 6},
    {"aten::conv3d", 3, 4, 5, -1, 6},
    // convolution / _convolution(input, weight, bias, stride, padding, dilation, transposed,
    // output_padding, groups, ...)
    {"aten::convolution", 3, 4, 5, 6, 8},
    {"aten::_convolution", 3, 4, 5, 6, 8},
    // cudnn_convolution(self, weight, padding, stride, dilation, groups, ...)
    {"aten::cudnn_convolution", 3, 2, 4, -1, 5},
    // miopen_convolution(self, weight, bias, padding, stride, dilation, groups, ...)
    {"aten::miopen_convolution", 4, 3, 5, -1, 6},
};

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): grad_output gives the output size.
constexpr int kBackwardTransposed = 7;
constexpr int kBackwardGroups = 9;
constexpr int kBackwardMask = 10;

const ConvArgs* ArgsOf(std::string_view op) {
  for (const ConvArgs& a : kConvArgs) {
    if (a.op == op) return &a;
  }
  return nullptr;
}

// Argument |index| as integers, one per spatial dim (a single value applies to all).
std::optional<std::vector<int64_t>> PerDim(const std::vector<std::string>& concrete, int index,
                                           size_t spatial, int64_t fallback) {
  if (index < 0) return std::vector<int64_t>(spatial, fallback);
  if (static_cast<size_t>(index) >= concrete.size()) return std::nullopt;
  auto v = ParseConcreteInts(concrete[index]);
  if (!v || (v->size() != 1 && v->size() != spatial)) return std::nullopt;
  if (v->size() == 1) v->assign(spatial, v->front());
  return v;
}

std::optional<int64_t> Scalar(const std::vector<std::string>& concrete, int index,
                              int64_t fallback) {
  if (index < 0) return fallback;
  if (static_cast<size_t>(index) >= concrete.size()) return std::nullopt;
  auto v = ParseConcreteInts(concrete[index]);
  if (!v || v->size() != 1) return std::nullopt;
  return v->front();
}

// input [N, C, spatial...] and weight [K, C/groups, kernel...] of one rank, all positive.
bool Fits(const std::vector<int64_t>& input, const std::vector<int64_t>& weight, int64_t groups,
          bool transposed) {
  if (input.size() < 3 || weight.size() != input.size() || groups < 1) return false;
  if (std::any_of(input.begin(), input.end(), [](int64_t d) { return d <= 0; })) return false;
  if (std::any_of(weight.begin(), weight.end(), [](int64_t d) { return d <= 0; })) return false;
  // Transposed weights are [C, K/groups, ...]: their first dim is the input's channels.
  return transposed ? weight[0] == input[1] : weight[1] * groups == input[1];
}

// 2 · N · w0 · w1 · ∏kernel · ∏|pixels| (output pixels, or input pixels when transposed).
double Count(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
             const std::vector<int64_t>& pixels) {
  double flops = 2.0 * static_cast<double>(input[0]) * static_cast<double>(weight[0]) *
                 static_cast<double>(weight[1]);
  for (size_t d = 2; d < weight.size(); ++d) flops *= static_cast<double>(weight[d]);
  for (int64_t p : pixels) flops *= static_cast<double>(p);
  return flops;
}

std::optional<double> Forward(const ConvArgs& a, const Dims& dims,
                              const std::vector<std::string>& concrete) {
  if (dims.size() < 2) return std::nullopt;
  const std::vector<int64_t>& input = dims[0];
  const std::vector<int64_t>& weight = dims[1];
  if (input.size() < 3) return std::nullopt;
  const size_t spatial = input.size() - 2;
  auto transposed = Scalar(concrete, a.transposed, 0);
  auto groups = Scalar(concrete, a.groups, 1);
  if (!transposed || !groups || !Fits(input, weight, *groups, *transposed != 0))
    return std::nullopt;
  std::vector<int64_t> pixels(input.begin() + 2, input.end());
  if (*transposed != 0) return Count(input, weight, pixels);
  auto stride = PerDim(concrete, a.stride, spatial, 1);
  auto padding = PerDim(concrete, a.padding, spatial, 0);
  auto dilation = PerDim(concrete, a.dilation, spatial, 1);
  if (!stride || !padding || !dilation) return std::nullopt;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t s = (*stride)[d];
    if (s <= 0 || (*dilation)[d] <= 0 || (*padding)[d] < 0) return std::nullopt;
    const int64_t span = (*dilation)[d] * (weight[d + 2] - 1) + 1;
    const int64_t padded = input[d + 2] + 2 * (*padding)[d];
    if (padded < span) return std::nullopt;
    pixels[d] = (padded - span) / s + 1;
  }
  return Count(input, weight, pixels);
}

std::optional<double> Backward(const Dims& dims, const std::vector<std::string>& concrete) {
  if (dims.size() < 3) return std::nullopt;
  const std::vector<int64_t>& grad_output = dims[0];
  const std::vector<int64_t>& input = dims[1];
  const std::vector<int64_t>& weight = dims[2];
  auto transposed = Scalar(concrete, kBackwardTransposed, 0);
  auto groups = Scalar(concrete, kBackwardGroups, 1);
  if (!transposed || !groups || !Fits(input, weight, *groups, *transposed != 0) ||
      grad_output.size() != input.size() || grad_output[0] != input[0])
    return std::nullopt;
  // The forward's pixels: its output (grad_output) or, transposed, its input.
  const std::vector<int64_t>& by = *transposed != 0 ? input : grad_output;
  if (std::any_of(by.begin(), by.end(), [](int64_t d) { return d <= 0; })) return std::nullopt;
  const double forward = Count(input, weight, std::vector<int64_t>(by.begin() + 2, by.end()));
  int64_t gradients = 2;  // grad input and grad weight, each one forward's work
  if (static_cast<size_t>(kBackwardMask) < concrete.size()) {
    auto mask = ParseConcreteInts(concrete[kBackwardMask]);
    if (mask && mask->size() >= 2) gradients = ((*mask)[0] != 0) + ((*mask)[1] != 0);
  }
  return forward * static_cast<double>(gradients);
}

}  // namespace

bool IsConvolutionOp(std::string_view op_name) {
  return op_name == "aten::convolution_backward" || ArgsOf(op_name) != nullptr;
}

std::optional<double> ConvolutionFlops(std::string_view op_name, const Dims& dims,
                                       const std::vector<std::string>& concrete) {
  if (op_name == "aten::convolution_backward") return Backward(dims, concrete);
  const ConvArgs* a = ArgsOf(op_name);
  return a == nullptr ? std::nullopt : Forward(*a, dims, concrete);
}

}  // namespace gpuwhy
