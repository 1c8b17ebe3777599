#include "model/op_shapes.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace op_shapes_test {

using Dims = std::vector<std::vector<int64_t>>;

TEST(OpShapesTest, ReadsTheDimsOfEveryInputAsRecorded) {
  EXPECT_EQ(ParseInputDims("[[512], [128, 784], [784, 512], [], []]"),
            (Dims{{512}, {128, 784}, {784, 512}, {}, {}}));
  EXPECT_EQ(ParseInputDims("[]"), Dims{});
  EXPECT_EQ(ParseInputDims(" [ [ 2 ,3 ] ] "), (Dims{{2, 3}}));
}

TEST(OpShapesTest, ATensorListInputHasNoSingleShape) {
  EXPECT_EQ(ParseInputDims("[[[4, 4], [8]], [2, 2], []]"), (Dims{{}, {2, 2}, {}}));
}

TEST(OpShapesTest, AnythingElseIsNoShapeList) {
  for (const char* bad : {"", "[", "[[1, 2]", "[[1, x]]", "[[1]] tail", "{\"a\": 1}", "[1, 2]",
                          "[[99999999999999999999]]", "[[[1]]"}) {
    EXPECT_EQ(ParseInputDims(bad), std::nullopt) << bad;
  }
}

TEST(OpShapesTest, ReadsTheInputTypes) {
  EXPECT_EQ(ParseInputTypes("[\"c10::BFloat16\", \"float\", \"Scalar\", \"\"]"),
            (std::vector<std::string>{"c10::BFloat16", "float", "Scalar", ""}));
  EXPECT_EQ(ParseInputTypes("[\"a\\\"b\"]"), std::nullopt);
  EXPECT_EQ(ParseInputTypes("[1]"), std::nullopt);
}

}  // namespace op_shapes_test
}  // namespace gpuwhy
