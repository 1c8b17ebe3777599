#include "model/data_problems.h"

#include <set>

#include <gtest/gtest.h>

namespace gpuwhy {
namespace data_problems_test {

TEST(DataProblemsTest, EveryKindIsDeclaredOnceWithADescription) {
  std::set<std::string_view> ids;
  for (size_t i = 0; i < kDataProblemCount; ++i) {
    auto kind = static_cast<DataProblem>(i);
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    SCOPED_TRACE(info.id);
    EXPECT_FALSE(info.id.empty());
    EXPECT_EQ(info.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string_view::npos);
    EXPECT_FALSE(info.description.empty());
    EXPECT_NE(SeverityName(info.severity), "?");
    EXPECT_TRUE(ids.insert(info.id).second) << "id declared twice";
    EXPECT_EQ(FindDataProblem(info.id), kind);
  }
  EXPECT_EQ(FindDataProblem("no_such_problem"), std::nullopt);
}

TEST(DataProblemsTest, CountsGoOnPastTheKeptDetails) {
  DataProblems problems;
  EXPECT_TRUE(problems.empty());
  for (size_t i = 0; i < DataProblems::kMaxDetails + 3; ++i) {
    problems.Add(DataProblem::kUnparsedLine, "line " + std::to_string(i + 1));
  }
  problems.Increment(DataProblem::kTruncated);
  EXPECT_FALSE(problems.empty());
  EXPECT_EQ(problems.Get(DataProblem::kUnparsedLine),
            static_cast<int64_t>(DataProblems::kMaxDetails + 3));
  ASSERT_EQ(problems.Details(DataProblem::kUnparsedLine).size(), DataProblems::kMaxDetails);
  EXPECT_EQ(problems.Detail(DataProblem::kUnparsedLine), "line 1");
  EXPECT_EQ(problems.Detail(DataProblem::kTruncated), "");
  // Table order, not the order of occurrence.
  EXPECT_EQ(problems.Kinds(),
            (std::vector<DataProblem>{DataProblem::kTruncated, DataProblem::kUnparsedLine}));
  EXPECT_EQ(problems.Total(), static_cast<int64_t>(DataProblems::kMaxDetails + 4));
}

TEST(DataProblemsTest, MergeAddsCountsAndKeepsTheFirstDetails) {
  DataProblems a, b;
  a.Add(DataProblem::kRowCutShort, "a.txt: line 2: short");
  b.Add(DataProblem::kRowCutShort, "b.txt: line 5: short", 2);
  b.Add(DataProblem::kTopLevelNotObject, "member \"x\"");
  a.MergeFrom(b);
  EXPECT_EQ(a.Get(DataProblem::kRowCutShort), 3);
  EXPECT_EQ(a.Details(DataProblem::kRowCutShort),
            (std::vector<std::string>{"a.txt: line 2: short", "b.txt: line 5: short"}));
  EXPECT_TRUE(a.HasErrors());
  EXPECT_EQ(b.WorstSeverity(), ProblemSeverity::kError);
  EXPECT_EQ(DataProblems().WorstSeverity(), ProblemSeverity::kInfo);
  EXPECT_EQ(a.Describe(),
            "top_level_parse_error x1 (member \"x\"), row_cut_short x3 (a.txt: line 2: short; "
            "b.txt: line 5: short)");
}

}  // namespace data_problems_test
}  // namespace gpuwhy
