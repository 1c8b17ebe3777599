// How a rule's second outcome merges with its first under each kind's policy.
#include "diagnose/outcome_recorder.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace outcome_recorder_test {

TEST(OutcomeRecorderTest, LatestReplacesTheStatusAndKeepsFired) {
  std::vector<RuleOutcome> o;
  RecordOutcome(o, OutcomeMerge::kLatest, "r", AssessStatus::kAssessed, true, "");
  RecordOutcome(o, OutcomeMerge::kLatest, "r", AssessStatus::kNotAssessed, false, "why");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].status, AssessStatus::kNotAssessed);
  EXPECT_TRUE(o[0].fired);
  EXPECT_EQ(o[0].note, "why");
}

TEST(OutcomeRecorderTest, PerDeviceNeverDowngradesAnAssessedOrFiredRow) {
  std::vector<RuleOutcome> o;
  RecordOutcome(o, OutcomeMerge::kPerDevice, "r", AssessStatus::kNotAssessed, false, "no series");
  RecordOutcome(o, OutcomeMerge::kPerDevice, "r", AssessStatus::kAssessed, true, "");
  RecordOutcome(o, OutcomeMerge::kPerDevice, "r", AssessStatus::kNotAssessed, false, "later");
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].status, AssessStatus::kAssessed);
  EXPECT_TRUE(o[0].fired);
  EXPECT_EQ(o[0].note, "no series");  // a note is kept only while nothing fired
}

TEST(OutcomeRecorderTest, AppendKeepsEveryRow) {
  std::vector<RuleOutcome> o;
  RecordOutcome(o, OutcomeMerge::kAppend, "r", AssessStatus::kAssessed, true, "");
  RecordOutcome(o, OutcomeMerge::kAppend, "r", AssessStatus::kAssessed, true, "");
  EXPECT_EQ(o.size(), 2u);
}

}  // namespace outcome_recorder_test
}  // namespace gpuwhy
