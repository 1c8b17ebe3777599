#include "analyze/hta_idle_split.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace hta_idle_split_test {

constexpr TimeNs kUs = kNsPerUs;

class HtaIdleSplitTest : public ::testing::Test {
 protected:
  void Op(int64_t stream, TimeNs start, TimeNs end, int64_t correlation, TimeNs launch_at) {
    CpuSliceTable::Row call;
    call.thread = trace_.GetOrCreateThread(1, 1);
    call.start = launch_at;
    call.end = launch_at + 1;
    call.name = trace_.strings.Intern("cudaLaunchKernel");
    call.kind = CpuSliceKind::kRuntime;
    call.correlation = correlation;
    trace_.cpu_slices.Append(call);
    GpuOpTable::Row row;
    row.stream = stream;
    row.start = start;
    row.end = end;
    row.name = trace_.strings.Intern("k");
    row.correlation = correlation;
    trace_.gpu_ops.Append(row);
  }
  HtaIdleSplitResult Run() {
    trace_.Finalize();
    timelines_ = BuildDeviceTimelines(trace_);
    return ComputeHtaIdleSplit({trace_, timelines_, options_}, metrics_);
  }
  Trace trace_;
  DeviceTimelines timelines_;
  AnalysisOptions options_;
  MetricSet metrics_;
};

TEST_F(HtaIdleSplitTest, HostKernelAndOtherWaits) {
  Op(7, 0, 10 * kUs, 1, -5 * kUs);
  Op(7, 15 * kUs, 20 * kUs, 2, 12 * kUs);    // launched after the previous end: host wait 5
  Op(7, 22 * kUs, 30 * kUs, 3, 13 * kUs);    // queued, gap 2 < 30: kernel wait
  Op(7, 130 * kUs, 140 * kUs, 4, 14 * kUs);  // queued, gap 100: other
  Op(9, 0, 1 * kUs, 5, -1 * kUs);            // a lone op: no gap at all
  HtaIdleSplitResult r = Run();
  ASSERT_EQ(r.streams.size(), 2u);
  const HtaStreamIdle& s = r.streams[0];
  EXPECT_EQ(s.stream, 7);
  EXPECT_EQ(s.op_count, 4);
  EXPECT_EQ(s.total_idle_ns, 107 * kUs);
  EXPECT_EQ(s.categories[0].total_ns, 5 * kUs);
  EXPECT_EQ(s.categories[1].total_ns, 2 * kUs);
  EXPECT_EQ(s.categories[2].total_ns, 100 * kUs);
  EXPECT_DOUBLE_EQ(s.categories[2].ratio, 100.0 / 107);
  EXPECT_EQ(s.categories[1].intervals.count, 1);
  EXPECT_DOUBLE_EQ(s.categories[2].intervals.max, 100.0);
  EXPECT_EQ(s.longest_gap.label, "other");
  EXPECT_EQ(s.longest_gap.start, 30 * kUs);
  EXPECT_EQ(r.streams[1].total_idle_ns, 0);
  EXPECT_DOUBLE_EQ(r.streams[1].categories[0].ratio, 0.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("hta_idle.host_wait_us", -1, MetricScope::Stream(0, 7)), 5.0);
  EXPECT_DOUBLE_EQ(metrics_.ValueOr("hta_idle.other_ratio", -1), 100.0 / 107);
}

TEST_F(HtaIdleSplitTest, ThresholdIsStrict) {
  Op(7, 0, 10 * kUs, 1, 0);
  Op(7, 40 * kUs, 50 * kUs, 2, 1 * kUs);  // gap exactly 30 µs: not under the threshold
  HtaIdleSplitResult r = Run();
  EXPECT_EQ(r.streams[0].categories[2].total_ns, 30 * kUs);
}

TEST_F(HtaIdleSplitTest, MissingLaunchIsNeverHostWait) {
  GpuOpTable::Row a;
  a.start = 0;
  a.end = 10;
  a.name = trace_.strings.Intern("k");
  trace_.gpu_ops.Append(a);
  a.start = 100 * kUs;
  a.end = 101 * kUs;
  trace_.gpu_ops.Append(a);
  HtaIdleSplitResult r = Run();
  EXPECT_EQ(r.streams[0].categories[2].intervals.count, 1);
}

TEST_F(HtaIdleSplitTest, Distribution) {
  std::vector<double> v = {4, 1, 3, 2};
  DistributionSummary s = Summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p25, 1.75);
  EXPECT_DOUBLE_EQ(s.p95, 3.85);
  EXPECT_NEAR(s.std, 1.2909944, 1e-6);
}

}  // namespace hta_idle_split_test
}  // namespace gpuwhy
