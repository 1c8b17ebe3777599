#include "base/time.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace time_test {

TEST(ParseMicrosecondsToNsTest, IntegersAndFractions) {
  EXPECT_EQ(ParseMicrosecondsToNs("0"), 0);
  EXPECT_EQ(ParseMicrosecondsToNs("12"), 12000);
  EXPECT_EQ(ParseMicrosecondsToNs("12.5"), 12500);
  EXPECT_EQ(ParseMicrosecondsToNs("4458676522690.655"), 4458676522690655);
  EXPECT_EQ(ParseMicrosecondsToNs("-2.25"), -2250);
  EXPECT_EQ(ParseMicrosecondsToNs("1.2345678"), 1234);  // sub-ns digits truncate
}

TEST(ParseMicrosecondsToNsTest, EpochMicrosecondsStayExact) {
  // 1606910596297023.123 µs cannot be held by a double at ns precision.
  EXPECT_EQ(ParseMicrosecondsToNs("1606910596297023.123"), 1606910596297023123);
  EXPECT_EQ(ParseMicrosecondsToNs("1606910596297023"), 1606910596297023000);
}

TEST(ParseMicrosecondsToNsTest, Exponents) {
  EXPECT_EQ(ParseMicrosecondsToNs("1.5e3"), 1500000);
  EXPECT_EQ(ParseMicrosecondsToNs("2E-3"), 2);
  EXPECT_EQ(ParseMicrosecondsToNs("15e-1"), 1500);
}

TEST(ParseMicrosecondsToNsTest, RejectsGarbageAndOverflow) {
  EXPECT_FALSE(ParseMicrosecondsToNs(""));
  EXPECT_FALSE(ParseMicrosecondsToNs("abc"));
  EXPECT_FALSE(ParseMicrosecondsToNs("1.2.3"));
  EXPECT_FALSE(ParseMicrosecondsToNs("-"));
  EXPECT_FALSE(ParseMicrosecondsToNs("99999999999999999999"));
  EXPECT_FALSE(ParseMicrosecondsToNs("1e400"));
}

TEST(ParseExactIntTest, Values) {
  EXPECT_EQ(ParseExactInt("42"), 42);
  EXPECT_EQ(ParseExactInt("-7"), -7);
  EXPECT_EQ(ParseExactInt("1711964646000000000"), 1711964646000000000);
  EXPECT_EQ(ParseExactInt("3.0"), 3);
  EXPECT_FALSE(ParseExactInt("x"));
}

}  // namespace time_test
}  // namespace gpuwhy
