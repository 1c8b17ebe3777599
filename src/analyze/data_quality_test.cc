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
  t.Kernel("ampere_sgemm_128x64_nn", Us(20), Us(30), 1);
  MetricSet m;
  DataQualityResult r = ComputeDataQuality(t.Input(), m);
  EXPECT_TRUE(r.issues.empty());
  EXPECT_TRUE(r.reliable);
  EXPECT_DOUBLE_EQ(m.ValueOr("quality.issues", -1), 0);
}

// Kernel time the kernel table cannot read is named above 1% (issue 16), as information: it
// does not make the trace unreliable, and below 1% it is not mentioned.
TEST(DataQualityTest, UnclassifiedKernelsAreNamed) {
  TinyTrace t;
  t.Step(1, Us(0), Us(1000));
  t.Runtime("cudaLaunchKernel", Us(10), Us(12), 1);
  t.Kernel("ampere_sgemm_128x64_nn", Us(20), Us(900), 1);
  t.Kernel("my_fused_thing", Us(900), Us(990), 1);
  MetricSet m;
  DataQualityResult r = ComputeDataQuality(t.Input(), m);
  const DataQualityIssue* u = FindIssue(r, "kernels_unclassified");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->severity, QualitySeverity::kInfo);
  EXPECT_EQ(u->count, 1);
  EXPECT_NE(u->message.find("9.3% of kernel time"), std::string::npos) << u->message;
  EXPECT_NE(u->message.find("my_fused_thing (90.00 µs)"), std::string::npos) << u->message;
  EXPECT_TRUE(r.reliable);

  TinyTrace small;
  small.Step(1, Us(0), Us(100000));
  small.Kernel("ampere_sgemm_128x64_nn", Us(0), Us(99500), 1);
  small.Kernel("my_fused_thing", Us(99500), Us(99900), 1);  // 0.4%
  MetricSet m2;
  EXPECT_EQ(FindIssue(ComputeDataQuality(small.Input(), m2), "kernels_unclassified"), nullptr);
}

}  // namespace data_quality_test
}  // namespace gpuwhy
