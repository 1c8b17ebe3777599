// ProcfsSampler on two fixture snapshots (tests/data/procfs/README.md has the deltas worked
// out by hand), and on this machine's live /proc with a busy child process.
#include "collect/procfs_sampler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace gpuwhy {
namespace procfs_sampler_test {

const std::string kFixture = std::string(GPUWHY_TEST_DATA) + "/procfs/";

MetricSeriesSet TwoSnapshots(pid_t target) {
  ProcfsSampler sampler(kFixture + "snap1", target);
  EXPECT_TRUE(sampler.Probe().ok());
  SampleStore store;
  sampler.Sample(0, store);
  sampler.set_root(kFixture + "snap2");
  sampler.Sample(kNsPerSec, store);
  MetricSeriesSet set;
  store.DrainInto(set);
  return set;
}

double Last(const MetricSeriesSet& set, std::string_view metric, std::string_view entity = "",
            int32_t device = -1) {
  const MetricSeries* s = set.Find(metric, device, entity);
  EXPECT_NE(s, nullptr) << metric << " " << entity;
  return s == nullptr || s->empty() ? -1 : s->value.back();
}

TEST(ProcfsSamplerTest, CpuDiskNetAndMemoryFromTwoSnapshots) {
  MetricSeriesSet set = TwoSnapshots(0);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_busy_pct"), 50);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_user_pct"), 30);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_system_pct"), 10);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_iowait_pct"), 20);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_steal_pct"), 10);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_busy_pct", "cpu0"), 100);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_busy_pct", "cpu1"), 0);
  EXPECT_DOUBLE_EQ(Last(set, "host.cpu_count"), 2);
  EXPECT_DOUBLE_EQ(Last(set, "host.ctx_switches_per_s"), 2000);
  EXPECT_DOUBLE_EQ(Last(set, "host.load1"), 1.5);
  EXPECT_DOUBLE_EQ(Last(set, "host.mem_used_pct"), 75);
  EXPECT_DOUBLE_EQ(Last(set, "host.mem_used_mib"), 12000);
  EXPECT_DOUBLE_EQ(Last(set, "host.disk_read_bps", "sda"), 1048576);
  EXPECT_DOUBLE_EQ(Last(set, "host.disk_write_bps", "sda"), 1048576);
  EXPECT_DOUBLE_EQ(Last(set, "host.disk_util_pct", "sda"), 50);
  EXPECT_DOUBLE_EQ(Last(set, "host.disk_util_pct", "nvme0n1"), 100);
  EXPECT_EQ(set.Find("host.disk_util_pct", -1, "sda1"), nullptr);
  EXPECT_EQ(set.Find("host.disk_util_pct", -1, "loop0"), nullptr);
  EXPECT_DOUBLE_EQ(Last(set, "host.net_rx_bps", "eth0"), 500000);
  EXPECT_DOUBLE_EQ(Last(set, "host.net_tx_bps", "eth0"), 250000);
  EXPECT_EQ(set.Find("host.net_rx_bps", -1, "lo"), nullptr);
  EXPECT_TRUE(set.FindAll("thread.cpu_pct").empty());  // no target process
}

TEST(ProcfsSamplerTest, ProcessTreeAndThreadsOfTheJob) {
  MetricSeriesSet set = TwoSnapshots(100);
  EXPECT_DOUBLE_EQ(Last(set, "proc.cpu_pct", "pid 100"), 100);
  EXPECT_DOUBLE_EQ(Last(set, "proc.cpu_pct", "pid 200"), 50);
  EXPECT_EQ(set.Find("proc.cpu_pct", -1, "pid 300"), nullptr);  // not in the tree
  EXPECT_DOUBLE_EQ(Last(set, "thread.cpu_pct", "tid 100"), 100);
  EXPECT_DOUBLE_EQ(Last(set, "thread.cpu_pct", "tid 101"), 0);
  EXPECT_EQ(set.Find("thread.cpu_pct", -1, "tid 101")->label, "pt_autograd 0");
  EXPECT_EQ(set.Find("proc.cpu_pct", -1, "pid 200")->label, "python (worker)");
  EXPECT_DOUBLE_EQ(Last(set, "proc.ctx_switches_per_s", "pid 100"), 100);
}

TEST(ProcfsSamplerTest, TheJobsOwnCpuAndTheBusiestProcessesOutsideIt) {
  MetricSeriesSet set = TwoSnapshots(100);
  EXPECT_DOUBLE_EQ(Last(set, "job.cpu_pct"), 150);  // pid 100 (100%) + its child 200 (50%)
  EXPECT_DOUBLE_EQ(Last(set, "host.other_cpu_pct"), 150);
  EXPECT_DOUBLE_EQ(Last(set, "host.other_proc_cpu_pct", "pid 300"), 150);
  EXPECT_EQ(set.Find("host.other_proc_cpu_pct", -1, "pid 300")->label, "other");
  EXPECT_EQ(set.Find("host.other_proc_cpu_pct", -1, "pid 100"), nullptr);  // the job's
  // Without a job there is no inside and outside.
  MetricSeriesSet host_only = TwoSnapshots(0);
  EXPECT_EQ(host_only.Find("job.cpu_pct"), nullptr);
  EXPECT_EQ(host_only.Find("host.other_cpu_pct"), nullptr);
}

TEST(ProcfsSamplerTest, PcieLinksOfNvidiaDevicesInPciOrder) {
  MetricSeriesSet set = TwoSnapshots(0);
  EXPECT_DOUBLE_EQ(Last(set, "gpu.pcie_gen", "sysfs", 0), 4);
  EXPECT_DOUBLE_EQ(Last(set, "gpu.pcie_gen", "sysfs", 1), 3);
  EXPECT_DOUBLE_EQ(Last(set, "gpu.pcie_gen_max", "sysfs", 1), 4);
  EXPECT_DOUBLE_EQ(Last(set, "gpu.pcie_width", "sysfs", 1), 8);
  EXPECT_DOUBLE_EQ(Last(set, "gpu.pcie_width_max", "sysfs", 1), 16);
  EXPECT_EQ(set.Find("gpu.pcie_gen", 1, "sysfs")->label, "0000:65:00.0");
  EXPECT_EQ(set.Find("gpu.pcie_gen", 2, "sysfs"), nullptr);  // the Intel bridge
  EXPECT_EQ(PcieGenFromSpeed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(PcieGenFromSpeed("32.0 GT/s PCIe"), 5);
}

TEST(ProcfsSamplerTest, LiveBusyChildIsSeenPinned) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;  // busy loop until killed
  }
  ProcfsSampler sampler("/", getpid());
  ASSERT_TRUE(sampler.Probe().ok());
  SampleStore store;
  for (int i = 0; i < 6; ++i) {
    sampler.Sample(std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count(),
                   store);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  MetricSeriesSet set;
  store.DrainInto(set);
  const MetricSeries* busy = set.Find("thread.cpu_pct", -1, "tid " + std::to_string(child));
  ASSERT_NE(busy, nullptr);
  // On a shared machine a spinning thread gets what the scheduler leaves; it must still
  // stand out as the busiest thread of the tree (the test's own thread mostly sleeps).
  EXPECT_GT(busy->Mean(), 10) << "child thread mean CPU";
  const MetricSeries* self = set.Find("thread.cpu_pct", -1, "tid " + std::to_string(getpid()));
  ASSERT_NE(self, nullptr);
  EXPECT_GT(busy->Mean(), 3 * self->Mean());
  EXPECT_NE(set.Find("host.cpu_busy_pct"), nullptr);
}

}  // namespace procfs_sampler_test
}  // namespace gpuwhy
