#include "model/compact_column.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/strong_id.h"

namespace gpuwhy {
namespace {

using Storage = IntColumn::Storage;

TEST(CompactColumnTest, StaysUniformWhileEveryRowIsEqual) {
  IntColumn c;
  c.reserve(1000);
  for (int i = 0; i < 1000; ++i) c.push_back(-1);
  EXPECT_EQ(c.size(), 1000u);
  EXPECT_EQ(c.storage(), Storage::kUniform);
  EXPECT_EQ(c.bytes(), 0u);  // nothing per row
  EXPECT_EQ(c[0], -1);
  EXPECT_EQ(c[999], -1);
}

TEST(CompactColumnTest, FirstDifferentValueBackFillsNarrowRows) {
  IntColumn c;
  for (int i = 0; i < 5; ++i) c.push_back(7);
  c.push_back(8);
  c.push_back(7);
  ASSERT_EQ(c.storage(), Storage::kNarrow);
  ASSERT_EQ(c.size(), 7u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(c[i], 7) << i;
  EXPECT_EQ(c[5], 8);
  EXPECT_EQ(c[6], 7);
  EXPECT_GE(c.bytes(), 7 * sizeof(int32_t));
  EXPECT_LT(c.bytes(), 7 * sizeof(int64_t));
}

TEST(CompactColumnTest, WidensOnTheFirstValueOutside32Bits) {
  const int64_t big = int64_t{1} << 40;
  IntColumn c;
  c.push_back(1);
  c.push_back(-2);
  ASSERT_EQ(c.storage(), Storage::kNarrow);
  c.push_back(big);
  c.push_back(std::numeric_limits<int64_t>::min());
  c.push_back(3);
  ASSERT_EQ(c.storage(), Storage::kWide);
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[1], -2);
  EXPECT_EQ(c[2], big);
  EXPECT_EQ(c[3], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(c[4], 3);
}

TEST(CompactColumnTest, UniformWideValueGoesStraightToWide) {
  const int64_t big = int64_t{5} << 33;
  IntColumn c;
  c.push_back(big);
  c.push_back(big);
  EXPECT_EQ(c.storage(), Storage::kUniform);
  c.push_back(1);  // the uniform value does not fit 32 bits: no narrow detour
  ASSERT_EQ(c.storage(), Storage::kWide);
  EXPECT_EQ(c[0], big);
  EXPECT_EQ(c[1], big);
  EXPECT_EQ(c[2], 1);
}

TEST(CompactColumnTest, VisitStorageSeesOnlyMaterialisedRows) {
  IntColumn c;
  c.push_back(4);
  c.push_back(4);
  int visits = 0;
  c.VisitStorage([&](auto&) { ++visits; });
  EXPECT_EQ(visits, 0);
  c.push_back(5);
  c.VisitStorage([&](auto& values) {
    ++visits;
    ASSERT_EQ(values.size(), 3u);
    std::swap(values[0], values[2]);  // a reorder, as Trace::Finalize does
  });
  EXPECT_EQ(visits, 1);
  EXPECT_EQ(c[0], 5);
  EXPECT_EQ(c[2], 4);
}

struct TestTag {};
using TestId = StrongId<TestTag>;

TEST(CompactColumnTest, TransformMapsUniformAndMaterialisedValues) {
  auto shift = [](TestId id) { return id.valid() ? TestId(id.value + 10) : id; };
  CompactColumn<TestId> uniform;
  uniform.push_back(TestId(1));
  uniform.push_back(TestId(1));
  uniform.Transform(shift);
  EXPECT_EQ(uniform[1], TestId(11));

  CompactColumn<TestId> mixed;
  mixed.push_back(TestId());
  mixed.push_back(TestId(2));
  ASSERT_EQ(mixed.storage(), CompactColumn<TestId>::Storage::kWide);  // no narrower type
  mixed.Transform(shift);
  EXPECT_FALSE(mixed[0].valid());
  EXPECT_EQ(mixed[1], TestId(12));
}

TEST(CompactColumnTest, EmptyColumn) {
  CompactColumn<int32_t> c;
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.storage(), CompactColumn<int32_t>::Storage::kUniform);
}

}  // namespace
}  // namespace gpuwhy
