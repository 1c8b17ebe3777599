#include "ranks/cross_rank.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpuwhy {
namespace cross_rank_test {

constexpr DurationNs kUs = kNsPerUs;

// A job of `n` ranks, `steps` steps of 10 ms, two all-reduces per step. The true (aligned)
// schedule: rank `slow` computes `slow_extra` longer before each collective; every kernel of
// a collective ends at the same true time. Each rank's clock reads true time + offsets[r].
std::vector<RankSummary> Job(int n, int steps, int slow, DurationNs slow_extra,
                             const std::vector<DurationNs>& offsets, DurationNs end_scatter = kUs) {
  std::vector<RankSummary> out(n);
  for (int r = 0; r < n; ++r) {
    RankSummary& s = out[r];
    s.rank = r;
    s.world_size = n;
    s.path = "rank" + std::to_string(r) + ".json";
    s.metrics.push_back({"step.time_median_ms", {}, 10.0 + (r == slow ? 0.5 : 0.0), "ms"});
    s.kernels.push_back({"gemm", 100, (r == slow ? 120 : 100) * 100 * kUs});
    for (int k = 0; k < steps; ++k) {
      TimeNs step_start = k * 10'000 * kUs;
      s.steps.push_back({k, step_start + offsets[r], step_start + 10'000 * kUs + offsets[r], 0, 0});
      for (int c = 0; c < 2; ++c) {
        DurationNs base = (3000 + 4000 * c) * kUs;
        DurationNs compute = base + r * kUs;  // small spread between healthy ranks
        TimeNs arrival = step_start + compute + (r == slow ? slow_extra : 0);
        TimeNs end = step_start + base + 2 * kUs * n + slow_extra +
                     500 * kUs;  // everyone waits for the slow one
        RankCollectiveTiming t;
        t.step = k;
        t.kind = "AllReduce";
        t.start = arrival + offsets[r];
        t.end = end + offsets[r] + (r % 2) * end_scatter;  // real end-time scatter
        t.bytes = 100 << 20;
        t.group_size = n;
        t.compute_before_ns = compute + (r == slow ? slow_extra : 0);
        s.collectives.push_back(t);
      }
    }
  }
  return out;
}

TEST(CrossRankTest, RecoversClockOffsetsWithinAMicrosecond) {
  std::vector<DurationNs> offsets = {0, 1'234'567'000, -987'654, 42 * kUs};
  CrossRankResult r = AnalyzeCrossRank(Job(4, 5, 2, 800 * kUs, offsets), {});
  ASSERT_EQ(r.clocks.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(r.clocks[i].aligned);
    EXPECT_NEAR(static_cast<double>(r.clocks[i].offset_ns), static_cast<double>(offsets[i]), 1000.0)
        << i;
  }
  EXPECT_EQ(r.collectives.size(), 10u);  // 5 steps × 2 all-reduces, all 4 ranks each
  for (const MatchedCollective& m : r.collectives) EXPECT_EQ(m.arrivals.size(), 4u);
}

TEST(CrossRankTest, FindsTheSlowRankItsDelayAndCause) {
  CrossRankResult r = AnalyzeCrossRank(Job(4, 5, 2, 800 * kUs, {0, 5000, -7000, 90}), {});
  ASSERT_FALSE(r.stragglers.empty());
  const StragglerStats& s = r.stragglers.front();
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.late_count, 10);
  EXPECT_DOUBLE_EQ(s.late_fraction, 1.0);
  // Arrival minus the median of the others (ranks 0, 1, 3 → rank 1 at +1 µs).
  EXPECT_NEAR(NsToUs(s.mean_late_ns), 800 + 1, 2);
  EXPECT_EQ(s.cause, "compute");
  EXPECT_NEAR(s.same_kernels_ratio, 1.2, 1e-9);
  // Each of 3 other ranks would have waited (800 µs + 2 - 3 µs) less... per collective, 2 per step.
  EXPECT_NEAR(NsToUs(s.others_wait_ns_per_step), 2 * 3 * (800 - 1), 2 * 3 * 2);
  EXPECT_EQ(r.stragglers[1].late_count, 0);
}

TEST(CrossRankTest, BusBandwidthUsesTheTransferAfterTheLastArrival) {
  // No end scatter: a constant per-rank scatter would be indistinguishable from a clock offset.
  CrossRankResult r = AnalyzeCrossRank(Job(4, 1, 1, 0, {0, 0, 0, 0}, 0), {});
  ASSERT_EQ(r.collectives.size(), 2u);
  const MatchedCollective& m = r.collectives.front();
  // Last arrival: rank 3 at 3003 µs; every rank ends at 3000 + 8 + 500 µs.
  EXPECT_EQ(m.transfer_ns, 505 * kUs);
  double algbw = (100 << 20) / static_cast<double>(m.transfer_ns);
  EXPECT_NEAR(m.busbw_gbps, algbw * 2 * 3 / 4, 1e-6);
  EXPECT_EQ(m.late_rank, 3);
}

TEST(CrossRankTest, MixedInputsAreReportedNotFatal) {
  std::vector<RankSummary> job = Job(4, 3, 0, 0, {0, 0, 0, 0});
  job[3].rank = 1;          // duplicate
  job[2].rank = kNoValue;   // unknown
  job[1].steps.pop_back();  // different step count
  job[0].world_size = 8;    // ranks 4-7 missing
  CrossRankResult r = AnalyzeCrossRank(job, {});
  EXPECT_EQ(r.rank_count, 3);
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("rank 1 appears twice"), std::string::npos) << all;
  EXPECT_NE(all.find("rank unknown"), std::string::npos) << all;
  EXPECT_NE(all.find("missing: 3-7"), std::string::npos) << all;
  EXPECT_NE(all.find("different step counts"), std::string::npos) << all;
}

// Issue 37: two 0.5 KB summaries claiming world_size 2^62 sized a vector of every rank
// (bad_alloc). The missing ranks are the gaps between those present: bounded by the files.
TEST(CrossRankTest, AHugeWorldSizeCostsNoMoreThanTheRanksGiven) {
  std::vector<RankSummary> job = Job(2, 2, 0, 0, {0, 0});
  job[0].world_size = int64_t{1} << 62;
  job[1].rank = 5;
  job[1].world_size = std::numeric_limits<int64_t>::max();
  CrossRankResult r = AnalyzeCrossRank(job, {});
  EXPECT_EQ(r.world_size, std::numeric_limits<int64_t>::max());
  std::string all;
  for (const std::string& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("2 of 9223372036854775807 ranks present; missing: 1-4, 6-9223372036854775806"),
            std::string::npos)
      << all;
}

TEST(CrossRankTest, ScalingEfficiencyFromABaseline) {
  RankSummary single;
  single.metrics.push_back({"step.time_median_ms", {}, 8.0, "ms"});
  CrossRankResult r = AnalyzeCrossRank(Job(4, 2, 0, 0, {0, 0, 0, 0}), {}, &single);
  ASSERT_TRUE(r.scaling.present);
  EXPECT_DOUBLE_EQ(r.scaling.speedup, 4 * 8.0 / 10.0);
  EXPECT_DOUBLE_EQ(r.scaling.efficiency, 0.8);
}

TEST(CrossRankTest, CollectiveKindFromKernelNames) {
  EXPECT_EQ(CollectiveKindFromKernel(
                "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long)"),
            "AllReduce");
  EXPECT_EQ(CollectiveKindFromKernel("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)"),
            "ReduceScatter");
  EXPECT_EQ(CollectiveKindFromKernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)"), "SendRecv");
  EXPECT_EQ(CollectiveKindFromKernel("void gemm_AllReduce_kernel()"), "");
}

}  // namespace cross_rank_test
}  // namespace gpuwhy
