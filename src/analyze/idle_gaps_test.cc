#include "analyze/idle_gaps.h"

#include <gtest/gtest.h>

#include <numeric>

#include "analyze/step_idle_test_util.h"

namespace gpuwhy {
namespace idle_gaps_test {

using step_idle_test::TinyTrace;

// Times in µs: launch runs bridge holes of up to 20 µs.
constexpr TimeNs U = kNsPerUs;

constexpr size_t I(IdleCause c) { return static_cast<size_t>(c); }

IdleGapsResult Analyse(const Trace& trace, MetricSet& metrics) {
  DeviceTimelines timelines = BuildDeviceTimelines(trace);
  AnalysisOptions options;
  return ComputeIdleGaps({trace, timelines, options}, metrics);
}

void ExpectSumInvariant(const IdleGapsResult& r) {
  for (const DeviceIdleGaps& d : r.devices) {
    EXPECT_EQ(std::accumulate(d.totals.ns.begin(), d.totals.ns.end(), DurationNs{0}),
              d.totals.idle_ns);
  }
  EXPECT_EQ(std::accumulate(r.rank.ns.begin(), r.rank.ns.end(), DurationNs{0}), r.rank.idle_ns);
  for (const IdleGap& g : r.top_gaps) {
    DurationNs sum = 0;
    for (const IdlePiece& p : g.pieces) sum += p.range.length();
    EXPECT_EQ(sum, g.range.length());
  }
}

TEST(IdleGapsTest, InputWait) {
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  t.Kernel(0, 10, 10, 100);
  t.Slice(t.main(), "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
          CpuSliceKind::kUserAnnotation, 100, 400);
  t.Kernel(400, 410, 420, 1000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.devices.size(), 1u);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.window_ns, 1000 * U);
  EXPECT_EQ(d.idle_ns, 330 * U);  // [0,10) before the first kernel, [100,420)
  EXPECT_EQ(d.gap_count, 2);
  EXPECT_EQ(d.ns[I(IdleCause::kInputWait)], 300 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 20 * U);  // [0,10) and [400,410)
  EXPECT_EQ(d.ns[I(IdleCause::kUnknown)], 10 * U);      // [410,420): nothing on the host
  ExpectSumInvariant(r);
  ASSERT_FALSE(r.top_gaps.empty());
  EXPECT_EQ(r.top_gaps[0].range, (Interval{100 * U, 420 * U}));
  EXPECT_EQ(r.top_gaps[0].dominant, IdleCause::kInputWait);
  ASSERT_EQ(r.top_gaps[0].pieces.size(), 3u);
  EXPECT_EQ(r.top_gaps[0].pieces[0].host_name,
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(r.evidence[0].label,
            "input_wait: enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_DOUBLE_EQ(metrics.ValueOr("idle.input_wait_pct", -1), 30);
  EXPECT_DOUBLE_EQ(metrics.ValueOr("idle.input_wait_ms", -1, MetricScope::Device(0)), 300e-3);
  EXPECT_DOUBLE_EQ(metrics.ValueOr("idle.input_wait_ms_per_step", -1), 300e-3);
}

// A gap with the next kernel already issued is a wait on something other than the host,
// whatever the host does meanwhile; a kernel launched into an empty queue pays only its
// launch latency (under kQueuedLaunchLatencyNs), which stays with the launch.
TEST(IdleGapsTest, WorkAlreadyQueuedIsNotHostBound) {
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  t.Kernel(0, 10, 10, 100);
  t.Kernel(20, 30, 400, 500);  // issued at 30, starts at 400: queued through [100,400)
  t.Slice(t.main(), "cudaStreamWaitEvent", CpuSliceKind::kRuntime, 40, 45);
  t.Op("aten::nonzero", 100, 390);  // host work during the queued wait does not claim it
  t.Kernel(600, 610, 630, 700);     // empty queue: starts 20 µs after its launch returns
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.devices.size(), 1u);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.idle_ns, 740 * U);  // [0,10), [100,400), [500,630), [700,1000)
  EXPECT_EQ(d.ns[I(IdleCause::kQueuedWait)], 300 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kHostBusy)], 0);
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 20 * U);  // [0,10) and [600,610)
  EXPECT_EQ(d.ns[I(IdleCause::kUnknown)], 420 * U);     // [500,600), [610,630), [700,1000)
  EXPECT_EQ(r.stream_wait_calls, 1);
  ExpectSumInvariant(r);
  EXPECT_DOUBLE_EQ(metrics.ValueOr("idle.queued_wait_pct", -1), 30);
}

// A drained queue stays the sync's cost until the next launch while the host runs nothing
// the trace names (Python between ops) or is still inside the blocking call's own op.
TEST(IdleGapsTest, SyncDrainLastsUntilTheNextLaunch) {
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  t.Kernel(0, 10, 10, 500);
  t.Op("aten::item", 20, 520);
  t.Op("aten::_local_scalar_dense", 21, 519);
  t.Launch(t.main(), "cudaMemcpyAsync", 25, 30, GpuOpKind::kMemcpy,
           "Memcpy DtoH (Device -> Pinned)", 500, 505);
  t.Slice(t.main(), "cudaStreamSynchronize", CpuSliceKind::kRuntime, 30, 510);
  t.Kernel(800, 810, 815, 1000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.idle_ns, 320 * U);                       // [0,10) and [505,815)
  EXPECT_EQ(d.ns[I(IdleCause::kSyncDrain)], 305 * U);  // [505,810)
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 10 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kUnknown)], 5 * U);
  ExpectSumInvariant(r);
}

// Once the blocking call has returned, CPU work that issues nothing (an image processor, a
// tokenizer, a Python-side op) is the host's time, not the drain's: the sync only waited.
TEST(IdleGapsTest, HostWorkAfterTheSyncReturnsIsHostBusy) {
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  t.Kernel(0, 10, 10, 500);
  t.Op("aten::item", 20, 520);
  t.Op("aten::_local_scalar_dense", 21, 519);
  t.Launch(t.main(), "cudaMemcpyAsync", 25, 30, GpuOpKind::kMemcpy,
           "Memcpy DtoH (Device -> Pinned)", 500, 505);
  t.Slice(t.main(), "cudaStreamSynchronize", CpuSliceKind::kRuntime, 30, 510);
  t.Op("aten::nonzero", 520, 800);
  t.Kernel(800, 810, 815, 1000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.idle_ns, 320 * U);
  // [505,520) still inside .item(), [800,810) the launch that refills the queue.
  EXPECT_EQ(d.ns[I(IdleCause::kSyncDrain)], 25 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kHostBusy)], 280 * U);  // aten::nonzero
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 10 * U);
  ASSERT_FALSE(r.host_busy_top.empty());
  EXPECT_EQ(r.host_busy_top.front().name, "aten::nonzero");
  ExpectSumInvariant(r);
}

// CPU work that launches nothing (a Python-side aten op on CPU tensors) is host_busy.
TEST(IdleGapsTest, HostBusyNamesTheOps) {
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  t.Kernel(0, 10, 10, 100);
  t.Op("aten::nonzero_cpu", 100, 600);
  t.Op("aten::cat", 200, 300);
  t.Kernel(600, 610, 620, 1000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.ns[I(IdleCause::kHostBusy)], 500 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 20 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kUnknown)], 10 * U);
  ASSERT_EQ(r.host_busy_top.size(), 2u);
  EXPECT_EQ(r.host_busy_top[0].name, "aten::nonzero_cpu");
  EXPECT_EQ(r.host_busy_top[0].ns, 400 * U);  // innermost time only
  EXPECT_EQ(r.host_busy_top[1].name, "aten::cat");
  ExpectSumInvariant(r);
}

TEST(IdleGapsTest, LaunchBoundBridgesDispatchBetweenLaunches) {
  TinyTrace t(U);
  t.Step(1, 0, 200);
  // Kernels of 4 ns behind launches of 10 ns, with 5 ns of op dispatch in between.
  for (int i = 0; i < 10; ++i) {
    TimeNs call = 15 * i;
    t.Op("aten::mul_", call, call + 15);
    t.Kernel(call + 5, call + 15, call + 14, call + 18);
  }
  t.Kernel(150, 160, 160, 200);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  // Every gap, [0,5) included, is either a launch call or aten::mul_ dispatching one.
  EXPECT_EQ(d.idle_ns, d.ns[I(IdleCause::kLaunchBound)]);
  EXPECT_EQ(d.gap_count, 11);
  ExpectSumInvariant(r);
}

TEST(IdleGapsTest, CommWaitOnHostAndGpu) {
  TinyTrace t(U);
  t.Step(1, 0, 1000);
  t.Kernel(0, 10, 10, 100);
  t.Op("c10d::barrier", 100, 400);
  t.trace().gpu_syncs.rows.push_back(
      {0, 7, 450 * U, 550 * U, t.trace().strings.Intern("Stream Wait Event"), 9, 13, 8});
  t.Kernel(400, 410, 600, 1000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.ns[I(IdleCause::kCommWait)], 400 * U);  // [100,400) host, [450,550) GPU wait
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 20 * U);
  EXPECT_EQ(d.ns[I(IdleCause::kUnknown)], 40 * U);  // [410,450)
  // Issued at 410, the kernel waits from 460 (its launch latency spent): [550,600) is queued.
  EXPECT_EQ(d.ns[I(IdleCause::kQueuedWait)], 50 * U);
  ExpectSumInvariant(r);
}

// A non-blocking NCCL call (enqueue the kernel, return in tens of µs) is host and launch time,
// not a wait on communication: 404 of them per step are launch overhead. One that blocks
// (as long as its kernel) is the collective's wait.
TEST(IdleGapsTest, OnlyABlockingCollectiveCallIsCommWait) {
  TinyTrace t(U);
  t.Step(1, 0, 2000);
  t.Kernel(0, 10, 10, 100);
  t.Op("nccl:all_reduce", 100, 130);
  t.Launch(t.main(), "cudaLaunchKernel", 120, 125, GpuOpKind::kKernel,
           "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 125,
           140);
  t.Kernel(130, 135, 140, 1000);
  t.Op("nccl:all_reduce", 1000, 1400);
  t.Launch(t.main(), "cudaLaunchKernel", 1390, 1395, GpuOpKind::kKernel,
           "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 1395,
           1600);
  t.Kernel(1600, 1605, 1605, 2000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.idle_ns, 435 * U);                      // [0,10), [100,125), [1000,1395), [1600,1605)
  EXPECT_EQ(d.ns[I(IdleCause::kCommWait)], 395 * U);  // the blocking call
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 20 * U);  // the three launch calls
  EXPECT_EQ(d.ns[I(IdleCause::kHostBusy)], 20 * U);     // inside the non-blocking call
  ExpectSumInvariant(r);
}

TEST(IdleGapsTest, StepBoundaryAndInputWinsOverDrain) {
  TinyTrace t(U);
  t.Step(1, 0, 500);
  t.Kernel(0, 10, 10, 400);
  t.Slice(t.main(), "cudaDeviceSynchronize", CpuSliceKind::kRuntime, 20, 405);
  t.Step(2, 500, 1000);
  t.Slice(t.main(), "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
          CpuSliceKind::kOp, 510, 560);
  t.Kernel(600, 610, 610, 1000);
  // A second device idle across the boundary: the drain ends at the first launch after
  // the sync, the rest of that gap is step boundary.
  t.Launch(t.main(), "cudaLaunchKernel", 11, 12, GpuOpKind::kKernel, "k", 12, 300, 1);
  t.Launch(t.main(), "cudaLaunchKernel", 612, 614, GpuOpKind::kKernel, "k", 700, 1000, 1);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.devices.size(), 2u);
  const IdleTotals& d0 = r.devices[0].totals;
  EXPECT_EQ(d0.idle_ns, 220 * U);                       // [0,10) and [400,610)
  EXPECT_EQ(d0.ns[I(IdleCause::kInputWait)], 50 * U);   // [510,560)
  EXPECT_EQ(d0.ns[I(IdleCause::kSyncDrain)], 160 * U);  // [400,510) and [560,610)
  EXPECT_EQ(d0.ns[I(IdleCause::kLaunchBound)], 10 * U);
  const IdleTotals& d1 = r.devices[1].totals;
  EXPECT_EQ(d1.ns[I(IdleCause::kLaunchBound)], (12 + 4) * U);  // [0,12) and [610,614)
  EXPECT_EQ(d1.ns[I(IdleCause::kSyncDrain)], 260 * U);
  EXPECT_EQ(d1.ns[I(IdleCause::kStepBoundary)], 50 * U);  // [614,664)
  EXPECT_EQ(d1.ns[I(IdleCause::kQueuedWait)], 36 * U);    // [664,700): issued at 614
  ExpectSumInvariant(r);
  EXPECT_EQ(r.rank.idle_ns, r.devices[0].totals.idle_ns + r.devices[1].totals.idle_ns);
  EXPECT_EQ(r.rank.window_ns, 2000 * U);
}

TEST(IdleGapsTest, StepBoundaryWithoutOtherCause) {
  TinyTrace t(U);
  t.Step(1, 0, 500);
  t.Kernel(0, 10, 10, 480);
  t.Step(2, 500, 1000);
  t.Kernel(600, 610, 610, 1000);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  const IdleTotals& d = r.devices[0].totals;
  EXPECT_EQ(d.ns[I(IdleCause::kStepBoundary)], 120 * U);  // [480,600)
  EXPECT_EQ(d.ns[I(IdleCause::kLaunchBound)], 20 * U);
  ExpectSumInvariant(r);
}

// Many overlapping host and GPU rows on two threads and two devices: causes always sum up.
TEST(IdleGapsTest, CausesSumToIdleOnAMessyTrace) {
  TinyTrace t(U);
  ThreadId worker = t.Thread(2);
  uint64_t x = 12345;
  auto next = [&x](int64_t mod) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(mod));
  };
  for (int s = 0; s < 4; ++s) t.Step(s, s * 10000, (s + 1) * 10000);
  const char* names[] = {"aten::add", "enumerate(DataLoader)#X.__next__", "nccl:all_reduce",
                         "aten::item"};
  for (int i = 0; i < 300; ++i) {
    TimeNs a = next(40000);
    ThreadId th = next(2) == 0 ? t.main() : worker;
    t.Slice(th, names[next(4)], CpuSliceKind::kOp, a, a + next(800) + 1);
    if (next(5) == 0)
      t.Slice(th, "cudaStreamSynchronize", CpuSliceKind::kRuntime, a + 1, a + next(300) + 2);
    TimeNs g = a + next(500);
    t.Launch(th, "cudaLaunchKernel", a, a + next(20) + 1, GpuOpKind::kKernel, "k", g,
             g + next(300) + 1, static_cast<int32_t>(next(2)));
  }
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  ASSERT_EQ(r.devices.size(), 2u);
  ExpectSumInvariant(r);
  for (const DeviceIdleGaps& d : r.devices) {
    DeviceTimelines timelines = BuildDeviceTimelines(t.trace());
    DurationNs busy = timelines.by_device.at(d.device).all_ops.CoveredLength(d.window);
    EXPECT_EQ(d.totals.idle_ns, d.window.length() - busy);
  }
}

TEST(IdleGapsTest, NoGpuOpsIsNotApplicable) {
  TinyTrace t(U);
  t.Op("aten::add", 0, 10);
  MetricSet metrics;
  IdleGapsResult r = Analyse(t.Finish(), metrics);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_FALSE(r.not_applicable.empty());
}

}  // namespace idle_gaps_test
}  // namespace gpuwhy
