#include "ingest/ncu/ncu_values.h"

#include <gtest/gtest.h>

#include "ingest/ncu/csv_records.h"
#include "ingest/ncu/ncu_pages.h"

namespace gpuwhy {
namespace ncu_values_test {

TEST(NcuValuesTest, ThousandsSeparatorsAndText) {
  EXPECT_EQ(ParseNcuNumber("19,200"), 19200.0);
  EXPECT_EQ(ParseNcuNumber("8,382.70"), 8382.70);
  EXPECT_EQ(ParseNcuNumber("999,845,384.51"), 999845384.51);
  EXPECT_EQ(ParseNcuNumber("0"), 0.0);
  EXPECT_EQ(ParseNcuNumber("-1.5e+03"), -1500.0);
  EXPECT_EQ(ParseNcuNumber("1,2"), std::nullopt);
  EXPECT_EQ(ParseNcuNumber("1,2345"), std::nullopt);
  EXPECT_EQ(ParseNcuNumber("1.234,5"), std::nullopt);
  EXPECT_EQ(ParseNcuNumber("n/a"), std::nullopt);
  EXPECT_EQ(ParseNcuNumber("inf"), std::nullopt);
  EXPECT_EQ(ParseNcuNumber("cudaFuncCachePreferNone"), std::nullopt);
  EXPECT_EQ(ParseNcuNumber(""), std::nullopt);
}

TEST(NcuValuesTest, UnitsScaleToBase) {
  EXPECT_EQ(NcuUnitScale(""), 1.0);
  EXPECT_EQ(NcuUnitScale("%"), 1.0);
  EXPECT_EQ(NcuUnitScale("Kbyte"), 1e3);
  EXPECT_EQ(NcuUnitScale("Mbyte"), 1e6);
  EXPECT_EQ(NcuUnitScale("usecond"), 1e3);  // nanoseconds
  EXPECT_EQ(NcuUnitScale("msecond"), 1e6);
  EXPECT_EQ(NcuUnitScale("Gbyte/second"), 1e9);
  EXPECT_EQ(NcuUnitScale("Tbyte/second"), 1e12);
  EXPECT_EQ(NcuUnitScale("cycle/nsecond"), 1e9);  // hertz
  EXPECT_EQ(NcuUnitScale("Ghz"), 1e9);
  EXPECT_EQ(NcuUnitScale("register/thread"), 1.0);
  EXPECT_EQ(NcuUnitScale("Kbyte/block"), 1e3);
  EXPECT_EQ(NcuUnitScale("furlong"), std::nullopt);
  EXPECT_EQ(NcuUnitScale("byte/furlong"), std::nullopt);
  EXPECT_EQ(NcuUnitScale("byte/second/second"), std::nullopt);
}

TEST(NcuValuesTest, LaunchDims) {
  EXPECT_EQ(ParseLaunchDims("(768, 1, 1)"), 768);
  EXPECT_EQ(ParseLaunchDims("(16, 24, 1)"), 384);
  EXPECT_EQ(ParseLaunchDims("20,736"), 20736);
  EXPECT_EQ(ParseLaunchDims("(16, x, 1)"), -1);
  EXPECT_EQ(ParseLaunchDims("(16, 24"), -1);
  EXPECT_EQ(ParseLaunchDims(""), -1);
}

TEST(CsvRecordsTest, QuotedCommasDoubledQuotesAndLineBreaks) {
  CsvRecordReader reader("\"a, b\",\"say \"\"hi\"\"\",3\r\n\n\"two\nlines\",x\n\"cut");
  CsvRecord r;
  ASSERT_TRUE(reader.Next(r));
  EXPECT_EQ(r.fields, (std::vector<std::string>{"a, b", "say \"hi\"", "3"}));
  EXPECT_EQ(r.line, 1);
  ASSERT_TRUE(reader.Next(r));
  EXPECT_EQ(r.fields, (std::vector<std::string>{"two\nlines", "x"}));
  EXPECT_EQ(r.line, 3);
  ASSERT_TRUE(reader.Next(r));
  EXPECT_EQ(r.line, 5);
  EXPECT_TRUE(r.unterminated);
  EXPECT_FALSE(reader.Next(r));
}

}  // namespace ncu_values_test
}  // namespace gpuwhy
