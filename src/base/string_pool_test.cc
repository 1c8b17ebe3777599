#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwhy {
namespace string_pool_test {

TEST(StringPoolTest, InternsOnce) {
  StringPool pool;
  StringId a = pool.Intern("aten::mm");
  StringId b = pool.Intern(std::string("aten::") + "mm");
  EXPECT_EQ(a, b);
  EXPECT_EQ(pool.Get(a), "aten::mm");
  EXPECT_NE(pool.Intern("aten::add"), a);
  EXPECT_EQ(pool.Intern(""), StringId(0));
  EXPECT_EQ(pool.Find("aten::mm"), a);
  EXPECT_FALSE(pool.Find("missing").valid());
}

TEST(StringPoolTest, ViewsSurviveGrowth) {
  StringPool pool;
  StringId first = pool.Intern("first");
  std::string_view view = pool.Get(first);
  std::string big(400000, 'x');
  for (int i = 0; i < 20; ++i) pool.Intern(big + std::to_string(i));
  for (int i = 0; i < 100000; ++i) pool.Intern("k" + std::to_string(i));
  EXPECT_EQ(view, "first");
  EXPECT_EQ(pool.Get(pool.Intern("k99999")), "k99999");
  EXPECT_EQ(pool.Get(StringId()), "");
}

}  // namespace string_pool_test
}  // namespace gpuwhy
