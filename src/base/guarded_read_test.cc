#include "base/guarded_read.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gpuwhy {
namespace guarded_read_test {

TEST(GuardedReadTest, AnExceptionBecomesTheInputsOwnFailure) {
  StatusOr<int> thrown = GuardedRead("rank3.json", []() -> StatusOr<int> {
    throw std::out_of_range("basic_string_view::substr");
  });
  ASSERT_FALSE(thrown.ok());
  EXPECT_EQ(thrown.status().code(), StatusCode::kInternal);
  EXPECT_EQ(thrown.status().message(),
            "rank3.json: internal error reading the file: basic_string_view::substr");
  Status status = GuardedRead("x.log", []() -> Status { throw std::bad_alloc(); });
  EXPECT_EQ(status.message(), "x.log: internal error reading the file: std::bad_alloc");
}

TEST(GuardedReadTest, ValuesAndErrorsPassThrough) {
  StatusOr<int> value = GuardedRead("a", []() -> StatusOr<int> { return 7; });
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 7);
  Status error = GuardedRead("a", [] { return InvalidArgument("a: byte 3: bad"); });
  EXPECT_EQ(error.message(), "a: byte 3: bad");
}

}  // namespace guarded_read_test
}  // namespace gpuwhy
