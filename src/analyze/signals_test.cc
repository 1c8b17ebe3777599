// Signal analyses on series with known, injected behaviour.
#include "analyze/signals.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace signals_test {

constexpr DurationNs kTick = 100 * kNsPerMs;  // 10 Hz

// |periods| cycles of |high| samples at 90% then |low| samples at 5%.
void AddSawtooth(MetricSeriesSet& set, int32_t device, int periods, int high, int low) {
  int64_t i = 0;
  for (int p = 0; p < periods; ++p) {
    for (int k = 0; k < high + low; ++k, ++i) {
      set.Add({"gpu.util_pct", device, ""}, "%", i * kTick, k < high ? 90 : 5);
    }
  }
}

TEST(SignalsTest, SawtoothPeriodAndLowShare) {
  MetricSeriesSet set;
  AddSawtooth(set, 0, 10, 9, 3);  // period 12 ticks = 1.2 s, 3/12 = 25% low
  SignalAnalysis a = AnalyzeSignals(set);
  ASSERT_EQ(a.gpus.size(), 1u);
  const Sawtooth& st = a.gpus[0].sawtooth;
  EXPECT_TRUE(st.found);
  EXPECT_EQ(st.collapses, 10);
  EXPECT_NEAR(st.period_s, 1.2, 1e-9);
  EXPECT_NEAR(st.low_time_pct, 25.0, 1e-9);
  EXPECT_NE(a.metrics.Find("signals.sawtooth_period_s", MetricScope::Device(0)), nullptr);
}

TEST(SignalsTest, IrregularDipsAreNotASawtooth) {
  MetricSeriesSet set;
  int64_t i = 0;
  for (int run : {3, 20, 5, 40, 4, 9}) {
    for (int k = 0; k < run; ++k) set.Add({"gpu.util_pct", 0, ""}, "%", i++ * kTick, 95);
    set.Add({"gpu.util_pct", 0, ""}, "%", i++ * kTick, 2);
  }
  Sawtooth st = FindSawtooth(*set.Find("gpu.util_pct", 0), SignalOptions{});
  EXPECT_EQ(st.collapses, 6);
  EXPECT_FALSE(st.found);
  EXPECT_GT(st.period_cv, 0.35);
}

TEST(SignalsTest, ThrottleReasonsByTimeShare) {
  MetricSeriesSet set;
  for (int i = 0; i < 10; ++i) {
    // 0x4 (power cap) in 4 of 10 samples, 0x40 (hw thermal) in 1; 0x1 (idle) is not throttling.
    uint64_t bits = (i < 4 ? 0x4 : 0) | (i == 9 ? 0x40 : 0) | 0x1;
    set.Add({"gpu.throttle_reasons", 0, ""}, "bitmask", i * kTick, static_cast<double>(bits));
    set.Add({"gpu.util_pct", 0, ""}, "%", i * kTick, 99);
  }
  GpuSignals g = AnalyzeSignals(set).gpus[0];
  ASSERT_TRUE(g.throttle_recorded);
  EXPECT_DOUBLE_EQ(g.throttle_pct[0], 40);  // sw_power_cap
  EXPECT_DOUBLE_EQ(g.throttle_pct[3], 10);  // hw_thermal
  EXPECT_DOUBLE_EQ(g.throttle_pct[1], 0);
}

TEST(SignalsTest, PcieJudgedOnlyWhileBusy) {
  MetricSeriesSet set;
  for (int i = 0; i < 10; ++i) {
    bool busy = i >= 5;
    set.Add({"gpu.util_pct", 0, ""}, "%", i * kTick, busy ? 80 : 0);
    set.Add({"gpu.pcie_gen", 0, ""}, "gen", i * kTick, busy ? 4 : 1);  // idle: gen 1 is normal
    set.Add({"gpu.pcie_gen_max", 0, ""}, "gen", i * kTick, 4);
    set.Add({"gpu.pcie_width", 0, ""}, "lanes", i * kTick, 16);
    set.Add({"gpu.pcie_width_max", 0, ""}, "lanes", i * kTick, 16);
  }
  EXPECT_DOUBLE_EQ(*AnalyzeSignals(set).gpus[0].pcie_downgraded_pct, 0);
  MetricSeriesSet narrow = set;
  for (int i = 0; i < 10; ++i) narrow.Add({"gpu.pcie_width", 1, ""}, "lanes", i * kTick, 8);
  for (int i = 0; i < 10; ++i) narrow.Add({"gpu.pcie_width_max", 1, ""}, "lanes", i * kTick, 16);
  GpuSignals g1 = AnalyzeSignals(narrow).gpus[1];
  EXPECT_DOUBLE_EQ(*g1.pcie_downgraded_pct, 100);
  EXPECT_DOUBLE_EQ(*g1.pcie_width, 8);
}

TEST(SignalsTest, ContentionCountsComputeProcessesOnly) {
  MetricSeriesSet set;
  set.Add({"gpu.process_seen", 0, "pid 1"}, "bool", 0, 1);
  set.Add({"gpu.process_seen", 0, "pid 2"}, "bool", 0, 1);
  set.Add({"gpu.process_seen", 0, "pid 3"}, "bool", 0, 0);  // graphics only
  EXPECT_EQ(AnalyzeSignals(set).gpus[0].compute_processes.size(), 2u);
}

TEST(SignalsTest, MemoryFromUsedAndFree) {
  MetricSeriesSet set;
  set.Add({"gpu.mem_used_mib", 0, ""}, "MiB", 0, 9500);
  set.Add({"gpu.mem_free_mib", 0, ""}, "MiB", 0, 500);
  EXPECT_DOUBLE_EQ(*AnalyzeSignals(set).gpus[0].mem_used_max_pct, 95);
}

TEST(SignalsTest, PinnedThreadWhileGpuIdlesAndIoWait) {
  MetricSeriesSet set;
  for (int i = 0; i < 20; ++i) {
    bool gpu_idle = i % 2 == 0;
    set.Add({"gpu.util_pct", 0, ""}, "%", i * kTick, gpu_idle ? 3 : 90);
    set.Add({"thread.cpu_pct", -1, "tid 11"}, "%", i * kTick, 100);
    set.Add({"thread.cpu_pct", -1, "tid 12"}, "%", i * kTick, 10);
    set.Add({"host.cpu_iowait_pct", -1, ""}, "%", i * kTick, i < 4 ? 30 : 0);
    set.Add({"host.cpu_busy_pct", -1, ""}, "%", i * kTick, 99);
  }
  set.GetOrCreate({"thread.cpu_pct", -1, "tid 11"}, "%").label = "python";
  HostSignals h = AnalyzeSignals(set).host;
  EXPECT_EQ(h.busiest_thread, "tid 11 (python)");
  EXPECT_DOUBLE_EQ(*h.thread_pinned_gpu_idle_pct, 50);  // pinned always, GPU idle half the time
  EXPECT_DOUBLE_EQ(*h.io_wait_gpu_idle_pct, 10);        // samples 0 and 2 of 20
  EXPECT_DOUBLE_EQ(*h.cpu_saturated_pct, 100);
}

TEST(SignalsTest, SaturationSplitsIntoTheJobsAndTheRestOfTheMachines) {
  // Two cores, 10 samples all saturated: the job sleeps in the first 6 (a neighbour busy on
  // both cores), then uses 190% of a core itself.
  MetricSeriesSet set;
  set.Add({"host.cpu_count", -1, ""}, "count", 0, 2);
  for (int i = 0; i < 10; ++i) {
    const bool job_busy = i >= 6;
    set.Add({"host.cpu_busy_pct", -1, ""}, "%", i * kTick, 100);
    set.Add({"job.cpu_pct", -1, ""}, "%", i * kTick, job_busy ? 190 : 0);
    if (!job_busy) set.Add({"host.other_proc_cpu_pct", -1, "pid 7"}, "%", i * kTick, 195);
    if (i < 2) set.Add({"host.other_proc_cpu_pct", -1, "pid 8"}, "%", i * kTick, 5);
  }
  set.GetOrCreate({"host.other_proc_cpu_pct", -1, "pid 7"}, "%").label = "stress";
  HostSignals h = AnalyzeSignals(set).host;
  EXPECT_DOUBLE_EQ(*h.cpu_saturated_pct, 100);
  EXPECT_DOUBLE_EQ(*h.cpu_saturated_by_job_pct, 40);
  EXPECT_DOUBLE_EQ(*h.cpu_saturated_by_others_pct, 60);
  EXPECT_EQ(h.busiest_others, (std::vector<std::string>{"pid 7 stress (195% of a core while seen)",
                                                        "pid 8 (5% of a core while seen)"}));
  // Without the job's CPU nothing can be split.
  MetricSeriesSet host_only;
  host_only.Add({"host.cpu_busy_pct", -1, ""}, "%", 0, 100);
  EXPECT_FALSE(AnalyzeSignals(host_only).host.cpu_saturated_by_others_pct.has_value());
}

TEST(SignalsTest, ACoreCountThatIsNoNumberIsNotCast) {
  MetricSeriesSet set;
  set.Add({"host.cpu_count", -1, ""}, "count", 0, 1e300);  // int cast would be undefined
  set.Add({"host.cpu_busy_pct", -1, ""}, "%", 0, 100);
  EXPECT_EQ(AnalyzeSignals(set).host.cores, 0);
}

}  // namespace signals_test
}  // namespace gpuwhy
