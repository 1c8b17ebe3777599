// Expected values: PyTorch 1.13's own `flops` for aten::conv2d (profile(with_flops=True) on CPU,
// the same shapes and arguments), written down here; 1.13 records no Concrete Inputs, so these
// give them as PyTorch 2.x writes them.
#include "analyze/conv_flops.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace {

using Strings = std::vector<std::string>;

TEST(ConvolutionFlopsTest, Conv2dMatchesPyTorchWithFlops) {
  // Conv2d(3, 8, 3, stride=2, padding=1) on [6, 3, 32, 32]: output 16 x 16.
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", {{6, 3, 32, 32}, {8, 3, 3, 3}, {8}, {}, {}, {}, {}},
                             {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"}),
            663552);
  // Conv2d(16, 32, (3, 5), stride=(2, 1), padding=(2, 1), dilation=(2, 3), groups=4) on
  // [2, 16, 15, 17]: output 8 x 7.
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", {{2, 16, 15, 17}, {32, 4, 3, 5}, {32}},
                             {"", "", "", "[2, 1]", "[2, 1]", "[2, 3]", "4"}),
            430080);
  // Depthwise Conv2d(8, 8, 3, groups=8) on [1, 8, 9, 9].
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", {{1, 8, 9, 9}, {8, 1, 3, 3}, {8}},
                             {"", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "8"}),
            7056);
}

TEST(ConvolutionFlopsTest, EachOpReadsItsOwnArgumentOrder) {
  const std::vector<std::vector<int64_t>> dims = {{2, 16, 15, 17}, {32, 4, 3, 5}, {32}};
  EXPECT_EQ(ConvolutionFlops("aten::convolution", dims,
                             {"", "", "", "[2, 1]", "[2, 1]", "[2, 3]", "False", "[0, 0]", "4"}),
            430080);
  EXPECT_EQ(ConvolutionFlops("aten::_convolution", dims,
                             {"", "", "", "[2, 1]", "[2, 1]", "[2, 3]", "False", "[0, 0]", "4",
                              "False", "False", "True", "True"}),
            430080);
  // cudnn_convolution(self, weight, padding, stride, dilation, groups, ...): no bias.
  EXPECT_EQ(ConvolutionFlops("aten::cudnn_convolution", {{2, 16, 15, 17}, {32, 4, 3, 5}},
                             {"", "", "[2, 1]", "[2, 1]", "[2, 3]", "4", "False", "False", "True"}),
            430080);
  // conv1d with a single stride for its one spatial dim: [4, 6, 20] * [12, 6, 5], stride 3.
  EXPECT_EQ(ConvolutionFlops("aten::conv1d", {{4, 6, 20}, {12, 6, 5}, {}},
                             {"", "", "", "[3]", "[0]", "[1]", "1"}),
            2.0 * 4 * 12 * 6 * 5 * 6);
}

TEST(ConvolutionFlopsTest, BackwardCountsOneForwardPerRequestedGradient) {
  // grad_output [6, 8, 16, 16], input [6, 3, 32, 32], weight [8, 3, 3, 3] (as 1.13 records it).
  const std::vector<std::vector<int64_t>> dims = {
      {6, 8, 16, 16}, {6, 3, 32, 32}, {8, 3, 3, 3}, {}, {}, {}, {}, {}, {}, {}, {}};
  Strings args = {"",
                  "",
                  "",
                  "[8]",
                  "[2, 2]",
                  "[1, 1]",
                  "[1, 1]",
                  "False",
                  "[0, 0]",
                  "1",
                  "[True, True, True]"};
  EXPECT_EQ(ConvolutionFlops("aten::convolution_backward", dims, args), 2 * 663552.0);
  // The first layer's input needs no gradient: only the weight's.
  args[10] = "[False, True, True]";
  EXPECT_EQ(ConvolutionFlops("aten::convolution_backward", dims, args), 663552.0);
}

TEST(ConvolutionFlopsTest, TransposedCountsInputPixels) {
  // ConvTranspose2d(8, 4, 3, stride=2) on [1, 8, 5, 5]: weight [8, 4, 3, 3].
  EXPECT_EQ(ConvolutionFlops("aten::convolution", {{1, 8, 5, 5}, {8, 4, 3, 3}, {4}},
                             {"", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"}),
            2.0 * 1 * 8 * 4 * 9 * 25);
}

TEST(ConvolutionFlopsTest, ShapesOrArgumentsThatDoNotFitCountNothing) {
  const std::vector<std::vector<int64_t>> dims = {{6, 3, 32, 32}, {8, 3, 3, 3}, {8}};
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", dims, {}), std::nullopt);  // no Concrete Inputs
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", dims, {"", "", "", "[2, 2]", "'same'", "[1]", "1"}),
            std::nullopt);
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", dims, {"", "", "", "[0, 0]", "[1, 1]", "[1]", "1"}),
            std::nullopt);  // stride 0
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", dims, {"", "", "", "[1, 1]", "[0, 0]", "[1]", "2"}),
            std::nullopt);  // 3 channels are not 2 groups of 3
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", {{1, 3, 2, 2}, {8, 3, 3, 3}},
                             {"", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "1"}),
            std::nullopt);  // kernel larger than the padded input
  EXPECT_EQ(ConvolutionFlops("aten::conv2d", {{6, 3, 32, 32}},
                             {"", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "1"}),
            std::nullopt);
  EXPECT_EQ(ConvolutionFlops("aten::relu", dims, {}), std::nullopt);
  EXPECT_FALSE(IsConvolutionOp("aten::relu"));
  EXPECT_TRUE(IsConvolutionOp("aten::convolution_backward"));
}

}  // namespace
}  // namespace gpuwhy
