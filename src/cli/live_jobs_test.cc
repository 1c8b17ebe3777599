// The job lines `gpuwhy run` puts in its report and `gpuwhy watch` shows, on the fake procfs
// trees of tests/data/jobs (cgroup v1 and v2 layouts).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/live_metrics.h"

namespace gpuwhy {
namespace live_jobs_test {

namespace fs = std::filesystem;
const std::string kJobs = std::string(GPUWHY_TEST_DATA) + "/jobs/";

void SeeProcess(MetricSeriesSet& set, int32_t gpu, int pid) {
  set.Add({"gpu.process_seen", gpu, fmt::format("pid {}", pid)}, "bool", kNsPerSec, 1);
}

TEST(LiveJobsTest, EachGpuProcessIsNamedByItsJob) {
  MetricSeriesSet set;
  SeeProcess(set, 0, 4242);
  SeeProcess(set, 1, 4242);
  SeeProcess(set, 1, 5151);
  SeeProcess(set, 0, 31337);  // gone from /proc: no job, no line
  JobIdentityCache jobs(kJobs + "v2");
  std::vector<std::string> lines = DescribeProcessJobs(set, jobs, /*target=*/6161);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "pid 4242 python (GPU 0, 1): pod ml-team/trainer-0 (uid "
            "0b9d6c6e-5f1a-4c7e-9a53-2d7e8f1c4b21), container containerd 3f2a9c1b07de");
  EXPECT_EQ(lines[1], "pid 5151 (GPU 1): slurm job 4242 step 0 (llama-pretrain)");
  EXPECT_EQ(lines[2], "pid 6161 (the command): container podman 5d4c3b2a1908");
}

TEST(LiveJobsTest, TheSameJobsFromCgroupV1) {
  MetricSeriesSet set;
  SeeProcess(set, 0, 4242);
  SeeProcess(set, 0, 5151);
  JobIdentityCache jobs(kJobs + "v1");
  std::vector<std::string> lines = DescribeProcessJobs(set, jobs);
  ASSERT_EQ(lines.size(), 2u);
  // No downward API in this pod's environment: the UID, and where a name would come from.
  EXPECT_EQ(lines[0],
            "pid 4242 (GPU 0): pod uid 0b9d6c6e-5f1a-4c7e-9a53-2d7e8f1c4b21 (name: no POD_NAME "
            "in its environment), container 3f2a9c1b07de");
  EXPECT_EQ(lines[1], "pid 5151 (GPU 0): slurm job 4242 step 0 (llama-pretrain)");
}

TEST(LiveJobsTest, RunRemembersProcessesGoneWatchForgetsThem) {
  fs::path root = fs::temp_directory_path() / fmt::format("gpuwhy_live_jobs_{}", ::getpid());
  MetricSeriesSet set;
  for (int pid = 100; pid < 100 + static_cast<int>(kMaxJobLines) + 2; ++pid) {
    fs::create_directories(root / fmt::format("proc/{}", pid));
    std::ofstream(root / fmt::format("proc/{}/cgroup", pid))
        << fmt::format("0::/system.slice/slurmstepd.scope/job_{}/step_0\n", pid);
    SeeProcess(set, 0, pid);
  }
  JobIdentityCache kept(root.string());
  JobIdentityCache watched(root.string());
  ReadProcessJobs(set, kept, GoneProcesses::kKeep);
  ReadProcessJobs(set, watched, GoneProcesses::kForget);
  fs::remove_all(root);  // every process exits
  std::vector<std::string> lines = DescribeProcessJobs(set, kept);
  ASSERT_EQ(lines.size(), kMaxJobLines + 1);
  EXPECT_EQ(lines.front(), "pid 100 (GPU 0): slurm job 100 step 0");
  EXPECT_EQ(lines.back(), "and 2 more processes with a job");
  ReadProcessJobs(MetricSeriesSet{}, watched, GoneProcesses::kForget);
  EXPECT_TRUE(watched.known().empty());
}

}  // namespace live_jobs_test
}  // namespace gpuwhy
