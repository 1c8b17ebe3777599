#include "analyze/launch_stats.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/launch_queue.h"
#include "analyze/launch_test_util.h"
#include "analyze/runtime_calls.h"

namespace gpuwhy {
namespace launch_stats_test {

using testing_util::TinyTrace;
constexpr TimeNs Us(int64_t us) { return UsToNs(us); }

// Four launches (one a two-kernel graph), a synchronize and an orphan kernel; see the
// expected numbers worked out in each assertion.
void Build(TinyTrace& t) {
  t.Runtime("cudaLaunchKernel", Us(0), Us(10), 1);
  t.Kernel("k1", Us(30), Us(40), 1);  // delay 20, gpu 10 = cpu 10: not short
  t.Runtime("cudaLaunchKernel", Us(10), Us(70), 2);
  t.Kernel("k2", Us(70), Us(75), 2);  // delay 0, cpu 60 > 50: runtime outlier; gpu 5 < 60: short
  t.Runtime("cudaMemcpyAsync", Us(80), Us(85), 3);
  t.Copy(CopyDirection::kHostToDevice, MemoryKind::kPinned, MemoryKind::kDevice, 64, Us(300),
         Us(310), 3);  // delay 215
  t.Runtime("cudaGraphLaunch", Us(90), Us(95), 4);
  t.Kernel("g1", Us(100), Us(110), 4);  // graph: delay 5, gpu 10 + 20
  t.Kernel("g2", Us(110), Us(130), 4);
  t.Runtime("cudaStreamSynchronize", Us(200), Us(400), 5);
  t.Kernel("orphan", Us(500), Us(510));
}

TEST(LaunchStatsTest, JoinsLaunchesToGpuOps) {
  TinyTrace t;
  Build(t);
  t.options.full_queue_length = 3;
  MetricSet m;
  LaunchStatsResult r = ComputeLaunchStats(t.Input(), m);
  ASSERT_EQ(r.launches.size(), 4u);
  EXPECT_EQ(r.calls, 4);
  EXPECT_EQ(r.gpu_ops, 5);
  EXPECT_EQ(r.graph_launches, 1);
  EXPECT_EQ(r.graph_ops, 2);
  EXPECT_EQ(r.launches[0].launch_delay(), Us(20));
  EXPECT_EQ(r.launches[1].launch_delay(), 0);
  EXPECT_EQ(r.launches[3].op_count, 2);
  EXPECT_EQ(r.launches[3].gpu_duration, Us(30));
  EXPECT_EQ(r.launches[3].launch_delay(), Us(5));
  // Delays {20, 0, 215, 5} µs.
  EXPECT_DOUBLE_EQ(r.delay_ns.mean, 60000.0);
  EXPECT_DOUBLE_EQ(r.delay_ns.median, 12500.0);
  EXPECT_DOUBLE_EQ(r.delay_ns.max, 215000.0);
  EXPECT_EQ(r.runtime_outliers, 1);
  EXPECT_EQ(r.delay_outliers, 1);
  EXPECT_EQ(r.short_kernels, 1);
  EXPECT_EQ(r.call_total, Us(80));
  ASSERT_EQ(r.top_delays.size(), 1u);
  EXPECT_EQ(r.top_delays[0].start, Us(85));
  EXPECT_EQ(r.top_delays[0].end, Us(300));
  ASSERT_EQ(r.top_runtime_outliers.size(), 1u);
  EXPECT_EQ(r.top_runtime_outliers[0].label, "cudaLaunchKernel");
  ASSERT_EQ(r.by_name.size(), 3u);
  EXPECT_EQ(r.by_name[0].name, "cudaLaunchKernel");
  EXPECT_EQ(r.by_name[0].count, 2);
  EXPECT_DOUBLE_EQ(m.ValueOr("launch.delay_mean_us", -1), 60.0);
  EXPECT_DOUBLE_EQ(m.ValueOr("launch.short_kernel_pct", -1), 25.0);
}

TEST(LaunchStatsTest, QueueLengthPerStream) {
  TinyTrace t;
  Build(t);
  t.options.full_queue_length = 3;
  MetricSet m;
  LaunchStatsResult r = ComputeLaunchStats(t.Input(), m);
  ASSERT_EQ(r.queues.size(), 1u);
  const StreamQueue& q = r.queues[0];
  // Events: +1@0 +1@10 -1@30 -1@70 +1@80 +1@90 +1@90 -1@100 -1@110 -1@300.
  ASSERT_EQ(q.series.size(), 10u);
  EXPECT_EQ(q.samples.count, 10);
  EXPECT_DOUBLE_EQ(q.samples.mean, 1.3);
  EXPECT_DOUBLE_EQ(q.samples.max, 3);
  EXPECT_DOUBLE_EQ(q.samples.min, 0);
  EXPECT_NEAR(q.time_weighted_mean, 340.0 / 300.0, 1e-12);
  EXPECT_EQ(q.full_time, Us(10));  // length 3 from 90 to 100
  EXPECT_DOUBLE_EQ(m.ValueOr("launch.queue_full_ms", -1, MetricScope::Stream(0, 7)), 0.01);
}

// Dropping the records (AnalyzeTrace's choice) frees them once the queues are counted: every
// other number and every metric is the same as with them kept (issue 37).
TEST(LaunchStatsTest, DroppedRecordsChangeNoNumber) {
  TinyTrace t;
  Build(t);
  t.options.full_queue_length = 2;
  MetricSet kept_metrics, dropped_metrics;
  LaunchStatsResult kept = ComputeLaunchStats(t.Input(), kept_metrics);
  LaunchStatsResult dropped = ComputeLaunchStats(t.Input(), dropped_metrics, LaunchRecords::kDrop);
  EXPECT_EQ(kept.launches.size(), 4u);
  EXPECT_TRUE(dropped.launches.empty());
  EXPECT_EQ(dropped.calls, kept.calls);
  EXPECT_EQ(dropped.gpu_ops, kept.gpu_ops);
  EXPECT_EQ(dropped.top_delays.size(), kept.top_delays.size());
  ASSERT_EQ(dropped.queues.size(), kept.queues.size());
  for (size_t q = 0; q < kept.queues.size(); ++q) {
    ASSERT_EQ(dropped.queues[q].series.size(), kept.queues[q].series.size());
    for (size_t i = 0; i < kept.queues[q].series.size(); ++i) {
      EXPECT_EQ(dropped.queues[q].series[i].ts, kept.queues[q].series[i].ts);
      EXPECT_EQ(dropped.queues[q].series[i].length, kept.queues[q].series[i].length);
    }
    EXPECT_EQ(dropped.queues[q].full_time, kept.queues[q].full_time);
  }
  ASSERT_EQ(dropped_metrics.all().size(), kept_metrics.all().size());
  for (size_t i = 0; i < kept_metrics.all().size(); ++i) {
    EXPECT_EQ(dropped_metrics.all()[i].id, kept_metrics.all()[i].id);
    EXPECT_EQ(dropped_metrics.all()[i].value, kept_metrics.all()[i].value) << i;
  }
}

// BuildStreamQueues buckets events by stream and merges the launch and op runs instead of
// sorting them all: the series must be the one a full sort by (device, stream, ts, launch
// first) gives, for events in any order, with ties, and with deltas other than +-1.
std::vector<std::vector<QueuePoint>> SortedSeries(std::vector<QueueEvent> events) {
  std::sort(events.begin(), events.end(), [](const QueueEvent& a, const QueueEvent& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.delta > b.delta;
  });
  std::vector<std::vector<QueuePoint>> out;
  int64_t length = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (i == 0 || events[i].device != events[i - 1].device ||
        events[i].stream != events[i - 1].stream) {
      out.emplace_back();
      length = 0;
    }
    length += events[i].delta;
    out.back().push_back({events[i].ts, length});
  }
  return out;
}

void ExpectSameAsSorted(const std::vector<QueueEvent>& events) {
  std::vector<StreamQueue> queues = BuildStreamQueues(events, 4, 1000);
  std::vector<std::vector<QueuePoint>> want = SortedSeries(events);
  ASSERT_EQ(queues.size(), want.size());
  for (size_t q = 0; q < want.size(); ++q) {
    ASSERT_EQ(queues[q].series.size(), want[q].size());
    for (size_t i = 0; i < want[q].size(); ++i) {
      EXPECT_EQ(queues[q].series[i].ts, want[q][i].ts) << q << " " << i;
      EXPECT_EQ(queues[q].series[i].length, want[q][i].length) << q << " " << i;
    }
  }
}

TEST(LaunchQueueTest, BucketedEventsMatchAFullSort) {
  std::vector<QueueEvent> events;
  uint64_t x = 12345;
  auto next = [&x](uint64_t mod) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((x >> 33) % mod);
  };
  for (int i = 0; i < 500; ++i) {
    int32_t device = static_cast<int32_t>(next(2));
    int64_t stream = 7 + next(3);
    TimeNs call = next(200);  // few distinct times: many ties, launch and op at one time
    events.push_back({.stream = stream, .ts = call, .device = device, .delta = +1});
    events.push_back({.stream = stream, .ts = call + next(20), .device = device, .delta = -1});
  }
  ExpectSameAsSorted(events);
  // A delta the bucketing does not handle falls back to the sort.
  events.push_back({.stream = 7, .ts = 50, .device = 0, .delta = +2});
  events.push_back({.stream = 7, .ts = 50, .device = 0, .delta = 0});
  ExpectSameAsSorted(events);
  ExpectSameAsSorted({});
}

TEST(LaunchStatsTest, HtaDropsLaunchesOfTheLastStep) {
  TinyTrace t;
  Build(t);
  t.Step(1, Us(0), Us(50));
  t.Step(2, Us(50), Us(600));
  t.options.drop_last_step = true;
  MetricSet m;
  LaunchStatsResult r = ComputeLaunchStats(t.Input(), m);
  EXPECT_EQ(r.calls, 2);  // the launches at 0 and 10 µs
  EXPECT_DOUBLE_EQ(m.ValueOr("launch.calls", -1, MetricScope::Step(1)), 2);
}

TEST(LaunchStatsTest, NotApplicableWithoutGpuOpsOrLaunches) {
  TinyTrace cpu_only;
  cpu_only.Op("aten::add", 0, 10);
  MetricSet m;
  EXPECT_FALSE(ComputeLaunchStats(cpu_only.Input(), m).not_applicable.empty());
  TinyTrace no_runtime;
  no_runtime.Kernel("k", 0, 10, 1);
  LaunchStatsResult r = ComputeLaunchStats(no_runtime.Input(), m);
  EXPECT_EQ(r.calls, 0);
  EXPECT_FALSE(r.not_applicable.empty());
  EXPECT_TRUE(m.all().empty());
}

TEST(RuntimeCallsTest, Classifies) {
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchKernel"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaLaunchKernelExC"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cuLaunchKernelEx"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipExtModuleLaunchKernel"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipModuleLaunchKernel"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemcpyAsync"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipMemsetAsync"), RuntimeCallKind::kLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaGraphLaunch"), RuntimeCallKind::kGraphLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("hipGraphLaunch"), RuntimeCallKind::kGraphLaunch);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMemcpy"), RuntimeCallKind::kSyncMemcpy);
  EXPECT_EQ(ClassifyRuntimeCall("hipMemcpyWithStream"), RuntimeCallKind::kSyncMemcpy);
  EXPECT_TRUE(IsQueuedLaunch(RuntimeCallKind::kSyncMemcpy, "hipMemcpyWithStream"));
  EXPECT_FALSE(IsQueuedLaunch(RuntimeCallKind::kSyncMemcpy, "cudaMemcpy"));
  EXPECT_EQ(ClassifyRuntimeCall("cudaStreamSynchronize"), RuntimeCallKind::kStreamSync);
  EXPECT_EQ(ClassifyRuntimeCall("hipDeviceSynchronize"), RuntimeCallKind::kDeviceSync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaEventSynchronize"), RuntimeCallKind::kEventSync);
  EXPECT_EQ(ClassifyRuntimeCall("cudaMalloc"), RuntimeCallKind::kAlloc);
  EXPECT_EQ(ClassifyRuntimeCall("hipFree"), RuntimeCallKind::kFree);
  EXPECT_EQ(ClassifyRuntimeCall("cudaStreamWaitEvent"), RuntimeCallKind::kOther);
  EXPECT_EQ(ClassifyRuntimeCall("cudaEventQuery"), RuntimeCallKind::kOther);
  EXPECT_EQ(ClassifyRuntimeCall("cudaFuncGetAttributes"), RuntimeCallKind::kOther);
}

}  // namespace launch_stats_test
}  // namespace gpuwhy
