#include "analyze/data_quality.h"

#include <gtest/gtest.h>

#include "analyze/launch_test_util.h"

namespace gpuwhy {
namespace data_quality_test {

using testing_util::TinyTrace;
constexpr TimeNs Us(int64_t us) { return UsToNs(us); }

const DataQualityIssue* FindIssue(const DataQualityResult& r, std::string_view id) {
  for (const DataQualityIssue& issue : r.issues) {
    if (issue.id == id) return &issue;
  }
  return nullptr;
}

TEST(DataQualityTest, CpuOnlyTraceWithoutSteps) {
  TinyTrace t;
  t.Op("aten::add", 0, 10);
  MetricSet m;
  DataQualityResult r = ComputeDataQuality(t.Input(), m);
  ASSERT_NE(FindIssue(r, "cpu_only"), nullptr);
  ASSERT_NE(FindIssue(r, "steps_synthesized"), nullptr);
  EXPECT_EQ(r.issues[0].id, "steps_synthesized");  // warnings before info
  EXPECT_FALSE(r.reliable);
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.issues", -1), 2);
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.warnings", -1), 1);
}

TEST(DataQualityTest, CutLastStepOrphansAndImportStats) {
  TinyTrace t;
  t.Step(1, Us(0), Us(100));
  t.Step(2, Us(100), Us(200));
  t.Step(3, Us(200), Us(230));  // 30 µs against a median of 100: cut short
  t.Runtime("cudaLaunchKernel", Us(10), Us(12), 1);
  t.Kernel("k", Us(20), Us(30), 1);
  t.Kernel("orphan", Us(40), Us(50), 99);
  t.trace.problems.Increment(DataProblem::kTruncated);
  MetricSet m;
  DataQualityResult r = ComputeDataQuality(t.Input(), m);
  ASSERT_FALSE(r.issues.empty());
  EXPECT_EQ(r.issues[0].id, "truncated");
  EXPECT_EQ(r.issues[0].severity, QualitySeverity::kError);
  const DataQualityIssue* cut = FindIssue(r, "last_step_cut");
  ASSERT_NE(cut, nullptr);
  EXPECT_NE(cut->message.find("ProfilerStep#3"), std::string::npos);
  const DataQualityIssue* orphans = FindIssue(r, "gpu_op_without_launch");
  ASSERT_NE(orphans, nullptr);
  EXPECT_EQ(orphans->count, 1);
  EXPECT_EQ(orphans->severity, QualitySeverity::kWarning);  // 1 of 2 ops
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.gpu_op_without_launch", -1), 1);
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.errors", -1), 1);
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.step_count", -1), 3);
}

TEST(DataQualityTest, CleanTraceIsReliable) {
  TinyTrace t;
  t.Step(1, Us(0), Us(100));
  t.Step(2, Us(100), Us(200));
  t.Runtime("cudaLaunchKernel", Us(10), Us(12), 1);
  t.Kernel("k", Us(20), Us(30), 1);
  MetricSet m;
  DataQualityResult r = ComputeDataQuality(t.Input(), m);
  EXPECT_TRUE(r.issues.empty());
  EXPECT_TRUE(r.reliable);
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.issues", -1), 0);
}

}  // namespace data_quality_test
}  // namespace gpuwhy
