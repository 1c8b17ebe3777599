#include "analyze/temporal_breakdown.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace temporal_breakdown_test {

constexpr TimeNs kUs = kNsPerUs;

class TemporalTest : public ::testing::Test {
 protected:
  void Op(GpuOpKind kind, const char* name, TimeNs start, TimeNs end, int32_t device = 0) {
    GpuOpTable::Row row;
    row.kind = kind;
    row.device = device;
    row.stream = 7;
    row.start = start;
    row.end = end;
    row.name = trace_.strings.Intern(name);
    trace_.gpu_ops.Append(row);
  }
  // compute [0,10), nccl [5,20), sync [20,30), memcpy [30,40) (µs).
  void BuildMixed() {
    Op(GpuOpKind::kKernel, "volta_sgemm_128x64_nn", 0, 10 * kUs);
    Op(GpuOpKind::kKernel, "ncclKernel_AllReduce_RING_LL_Sum_float", 5 * kUs, 20 * kUs);
    Op(GpuOpKind::kMemcpy, "Memcpy HtoD (Pinned -> Device)", 30 * kUs, 40 * kUs);
    trace_.gpu_syncs.rows.push_back(
        {0, 7, 20 * kUs, 30 * kUs, trace_.strings.Intern("Stream Sync"), -1, -1, -1});
  }
  void Finalize() {
    trace_.Finalize();
    timelines_ = BuildDeviceTimelines(trace_);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  MetricSet metrics_;
};

TEST_F(TemporalTest, SyncIsNeverBusy) {
  BuildMixed();
  Finalize();
  TemporalBreakdownResult r = ComputeTemporalBreakdown({trace_, timelines_, options_}, metrics_);
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.rank.span, (Interval{0, 40 * kUs}));
  EXPECT_EQ(r.rank.idle_ns, 10 * kUs);
  EXPECT_EQ(r.rank.compute_ns, 10 * kUs);
  EXPECT_EQ(r.rank.non_compute_ns, 20 * kUs);
  EXPECT_DOUBLE_EQ(r.rank.idle_pct, 25.0);
  EXPECT_DOUBLE_EQ(r.rank.compute_pct, 25.0);
  EXPECT_DOUBLE_EQ(r.rank.non_compute_pct, 50.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("temporal.idle_pct", -1), 25.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("temporal.span_us", -1), 40.0);
  ASSERT_EQ(r.longest_idle.size(), 1u);
  EXPECT_EQ(r.longest_idle[0].start, 20 * kUs);
  EXPECT_TRUE(r.per_device.empty());
}

TEST_F(TemporalTest, HtaCountsSyncAsBusyNonCompute) {
  BuildMixed();
  Finalize();
  HtaViewOptions hta;
  hta.syncs = SyncPolicy::kIncludeAsBusy;
  HtaView view = BuildHtaView(trace_, timelines_, hta);
  TemporalBreakdown b = ComputeTemporalTimes(view.ops);
  EXPECT_EQ(b.idle_ns, 0);
  EXPECT_EQ(b.compute_ns, 10 * kUs);
  EXPECT_EQ(b.non_compute_ns, 30 * kUs);
}

// The idle evidence is the complement of the rank-wide busy set: a gap on one device that
// another device covers is not idle.
TEST_F(TemporalTest, IdleEvidenceIsRankWide) {
  Op(GpuOpKind::kKernel, "k", 0, 10 * kUs, 0);
  Op(GpuOpKind::kKernel, "k", 40 * kUs, 50 * kUs, 0);
  Op(GpuOpKind::kKernel, "k", 5 * kUs, 25 * kUs, 1);
  Finalize();
  TemporalBreakdownResult r = ComputeTemporalBreakdown({trace_, timelines_, options_}, metrics_);
  EXPECT_EQ(r.rank.idle_ns, 15 * kUs);
  ASSERT_EQ(r.longest_idle.size(), 1u);
  EXPECT_EQ(r.longest_idle[0].start, 25 * kUs);
  EXPECT_EQ(r.longest_idle[0].end, 40 * kUs);
}

// AnalyzeTrace builds the exact-ns view once and shares it; an analysis that asks for other
// options (hta_compat counts syncs busy here) gets its own view, not the shared one.
TEST_F(TemporalTest, SharedViewOnlyWhenBuiltWithTheSameOptions) {
  BuildMixed();
  Finalize();
  HtaView shared = BuildHtaView(trace_, timelines_, ViewOptionsFor(options_));
  AnalysisInput input{trace_, timelines_, options_};
  input.view = &shared;
  HtaView scratch;
  EXPECT_EQ(&SharedHtaView(input, ViewOptionsFor(options_), scratch), &shared);
  const HtaView& busy_syncs =
      SharedHtaView(input, ViewOptionsFor(options_, SyncPolicy::kIncludeAsBusy), scratch);
  EXPECT_EQ(&busy_syncs, &shared);  // not hta_compat: the sync policy does not apply
  AnalysisOptions compat = options_;
  compat.hta_compat = true;
  const HtaView& own =
      SharedHtaView(input, ViewOptionsFor(compat, SyncPolicy::kIncludeAsBusy), scratch);
  EXPECT_EQ(&own, &scratch);
  EXPECT_EQ(own.ops.size(), shared.ops.size() + 1);  // the sync row counted as busy

  // The temporal breakdown reads the same numbers through the shared view.
  MetricSet with_shared, alone;
  TemporalBreakdownResult a = ComputeTemporalBreakdown(input, with_shared);
  TemporalBreakdownResult b = ComputeTemporalBreakdown({trace_, timelines_, options_}, alone);
  EXPECT_EQ(a.rank.idle_ns, b.rank.idle_ns);
  EXPECT_EQ(a.rank.compute_ns, b.rank.compute_ns);
  EXPECT_EQ(a.rank.span, b.rank.span);
}

TEST_F(TemporalTest, PerDeviceWhenSeveral) {
  Op(GpuOpKind::kKernel, "k", 0, 10 * kUs, 0);
  Op(GpuOpKind::kKernel, "k", 20 * kUs, 30 * kUs, 1);
  Finalize();
  TemporalBreakdownResult r = ComputeTemporalBreakdown({trace_, timelines_, options_}, metrics_);
  EXPECT_EQ(r.rank.idle_ns, 10 * kUs);  // HTA: all devices of the rank together
  ASSERT_EQ(r.per_device.size(), 2u);
  EXPECT_EQ(r.per_device[1].span, (Interval{20 * kUs, 30 * kUs}));
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("temporal.compute_pct", -1, MetricScope::Device(1)), 100.0);
}

TEST_F(TemporalTest, HtaRoundingCeilsStartsAndFloorsEnds) {
  // Fractional µs: HTA reads ts = 1000.4 → 1001 and end = 1003.9 → 1003.
  Op(GpuOpKind::kKernel, "k", 1000400, 1003900);
  Finalize();
  HtaViewOptions hta;
  hta.resolution = TimeResolution::kHtaMicroseconds;
  HtaView view = BuildHtaView(trace_, timelines_, hta);
  ASSERT_TRUE(view.rounded);
  EXPECT_EQ(view.ops[0].start, 1001 * kUs);
  EXPECT_EQ(view.ops[0].end, 1003 * kUs);
}

TEST_F(TemporalTest, NoGpuOps) {
  Finalize();
  TemporalBreakdownResult r = ComputeTemporalBreakdown({trace_, timelines_, options_}, metrics_);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.not_applicable.size(), 1u);
}

}  // namespace temporal_breakdown_test
}  // namespace gpuwhy
