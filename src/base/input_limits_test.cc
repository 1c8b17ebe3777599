#include "base/input_limits.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace input_limits_test {

TEST(InputLimitsTest, EveryKindHasADefaultAndTheOverrideChangesIt) {
  EXPECT_EQ(*MaxInputBytes(InputLimit::kNodeLog, ""), DefaultInputLimit(InputLimit::kNodeLog));
  EXPECT_EQ(*MaxInputBytes(InputLimit::kNodeLog, "4K"), 4096u);
  EXPECT_EQ(*MaxInputBytes(InputLimit::kNodeLog, "node_log=2M"), 2u << 20);
  // Another kind's entry leaves this one alone; entries apply left to right.
  EXPECT_EQ(*MaxInputBytes(InputLimit::kReport, "node_log=2M"),
            DefaultInputLimit(InputLimit::kReport));
  EXPECT_EQ(*MaxInputBytes(InputLimit::kReport, "1G, report=3g"), 3ull << 30);
  EXPECT_EQ(*MaxInputBytes(InputLimit::kTokenFile, "report=3g,0"), 0u);
}

TEST(InputLimitsTest, AnOverrideThatCannotBeReadNamesTheVariable) {
  for (const char* bad : {"12X", "node_log=", "nodelog=1M", "=5", "M", "99999999999999999999G"}) {
    StatusOr<uint64_t> limit = MaxInputBytes(InputLimit::kNodeLog, bad);
    ASSERT_FALSE(limit.ok()) << bad;
    EXPECT_TRUE(limit.status().message().starts_with("GPUWHY_INPUT_LIMITS: ")) << bad;
  }
}

TEST(InputLimitsTest, TheRefusalSaysTheLimitAndHowToRaiseIt) {
  EXPECT_EQ(DescribeInputLimit(InputLimit::kNodeLog, 256u << 20),
            "over the 256 MiB limit for a node log or command output "
            "(GPUWHY_INPUT_LIMITS=node_log=SIZE raises it)");
  EXPECT_NE(DescribeInputLimit(InputLimit::kTokenFile, 1000).find("1000 bytes"), std::string::npos);
}

}  // namespace input_limits_test
}  // namespace gpuwhy
