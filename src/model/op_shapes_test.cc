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

// As the resnet18 trace of ../shared/data/kineto/tracelens records aten::convolution_backward.
TEST(OpShapesTest, ReadsTheConcreteInputs) {
  auto concrete = ParseConcreteInputs(
      R"(["", "", "", "[0]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", )"
      R"("[True, True, False]"])");
  ASSERT_TRUE(concrete.has_value());
  ASSERT_EQ(concrete->size(), 11u);
  using Ints = std::vector<int64_t>;
  EXPECT_EQ(ParseConcreteInts((*concrete)[0]), std::nullopt);  // a tensor
  EXPECT_EQ(ParseConcreteInts((*concrete)[4]), (Ints{1, 1}));
  EXPECT_EQ(ParseConcreteInts((*concrete)[7]), (Ints{0}));
  EXPECT_EQ(ParseConcreteInts((*concrete)[9]), (Ints{1}));
  EXPECT_EQ(ParseConcreteInts((*concrete)[10]), (Ints{1, 1, 0}));
  EXPECT_EQ(ParseConcreteInts("[]"), (Ints{}));
  EXPECT_EQ(ParseConcreteInts("-2"), (Ints{-2}));
  for (const char* bad : {"'same'", "1.5", "[1, ", "Truex", "[1] 2", "[[1]]"}) {
    EXPECT_EQ(ParseConcreteInts(bad), std::nullopt) << bad;
  }
}

}  // namespace op_shapes_test
}  // namespace gpuwhy
