// Which job a process works for, from fake procfs trees of cgroup v1 and v2 layouts
// (tests/data/jobs/README.md) and from cgroup texts written here.
#include "collect/job_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "collect/job_identity_test_util.h"

namespace gpuwhy {
namespace job_identity_test {

namespace fs = std::filesystem;
using namespace std::literals;

const std::string kJobs = std::string(GPUWHY_TEST_DATA) + "/jobs/";
constexpr std::string_view kPodUid = "0b9d6c6e-5f1a-4c7e-9a53-2d7e8f1c4b21";
constexpr std::string_view kContainer =
    "3f2a9c1b07de6a5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7";

TEST(JobIdentityTest, KubernetesPodInBothCgroupLayouts) {
  JobIdentity v1 = ReadJobIdentity(kJobs + "v1", 4242);
  JobIdentity v2 = ReadJobIdentity(kJobs + "v2", 4242);
  for (const JobIdentity* id : {&v1, &v2}) {
    EXPECT_EQ(id->pod_uid, kPodUid);
    EXPECT_EQ(id->container_id, kContainer);
    EXPECT_TRUE(id->slurm_job.empty());
  }
  // The cgroupfs path does not say which runtime the kubelet drives; the systemd scope does.
  EXPECT_EQ(v1.container_runtime, "");
  EXPECT_EQ(v2.container_runtime, "containerd");
  // Names only where the downward API put them into the environment.
  EXPECT_EQ(v2.pod_name, "trainer-0");
  EXPECT_EQ(v2.pod_namespace, "ml-team");
  EXPECT_EQ(v2.JobName(), "ml-team/trainer-0");
  EXPECT_EQ(v1.pod_name, "");
  EXPECT_EQ(v1.JobName(), "pod " + std::string(kPodUid));
  EXPECT_EQ(v2.Describe(), "pod ml-team/trainer-0 (uid " + std::string(kPodUid) +
                               "), container containerd 3f2a9c1b07de");
  EXPECT_NE(v1.Describe().find("name: no POD_NAME in its environment"), std::string::npos)
      << v1.Describe();
}

TEST(JobIdentityTest, SlurmJobAndStepInBothCgroupLayouts) {
  for (const char* layout : {"v1", "v2"}) {
    JobIdentity id = ReadJobIdentity(kJobs + layout, 5151);
    EXPECT_EQ(id.slurm_job, "4242") << layout;
    EXPECT_EQ(id.slurm_step, "0") << layout;
    EXPECT_EQ(id.slurm_job_name, "llama-pretrain") << layout;
    EXPECT_TRUE(id.pod_uid.empty()) << layout;
    EXPECT_TRUE(id.container_id.empty()) << layout;
    EXPECT_EQ(id.JobName(), "slurm 4242.0") << layout;
    EXPECT_EQ(id.Describe(), "slurm job 4242 step 0 (llama-pretrain)") << layout;
  }
}

TEST(JobIdentityTest, StandaloneContainers) {
  JobIdentity docker = ReadJobIdentity(kJobs + "v1", 6161);
  EXPECT_EQ(docker.container_runtime, "docker");
  EXPECT_EQ(docker.container_id,
            "9c1e8a7b6d5f4e3c2b1a09f8e7d6c5b4a3928171605f4e3d2c1b0a9f8e7d6c5b");
  EXPECT_EQ(docker.JobName(), "docker 9c1e8a7b6d5f");
  EXPECT_TRUE(docker.environ_unreadable);
  JobIdentity podman = ReadJobIdentity(kJobs + "v2", 6161);
  EXPECT_EQ(podman.container_runtime, "podman");
  EXPECT_EQ(podman.container_id.substr(0, 12), "5d4c3b2a1908");
  EXPECT_TRUE(podman.pod_uid.empty());
}

TEST(JobIdentityTest, GuaranteedPodUnderCriO) {
  JobIdentity id = ReadJobIdentity(kJobs + "v2", 7171);
  EXPECT_EQ(id.pod_uid, "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(id.container_runtime, "cri-o");
  EXPECT_EQ(id.container_id.substr(0, 12), "8a7b6c5d4e3f");
  EXPECT_NE(id.Describe().find("its environment is not readable"), std::string::npos);
}

TEST(JobIdentityTest, ProcessOutsideAnyJobAndMissingProcess) {
  JobIdentity host = ParseProcCgroup("0::/user.slice/user-1000.slice/session-3.scope\n");
  EXPECT_TRUE(host.empty());
  EXPECT_EQ(host.JobName(), "");
  JobIdentity gone = ReadJobIdentity(kJobs + "v2", 99999);
  EXPECT_TRUE(gone.empty());
}

TEST(JobIdentityTest, LookalikesAreNotJobs) {
  // A "pod" folder outside kubepods, a job_ folder outside Slurm, short hex and conmon scopes.
  EXPECT_TRUE(ParseProcCgroup("0::/srv/pod0b9d6c6e-5f1a-4c7e-9a53-2d7e8f1c4b21/x\n").empty());
  EXPECT_TRUE(ParseProcCgroup("0::/user.slice/job_12/step_0\n").empty());
  EXPECT_TRUE(ParseProcCgroup("0::/docker/abc123\n").empty());
  EXPECT_TRUE(ParseProcCgroup("0::/machine.slice/libpod-conmon-5d4c3b2a1908f7e6.scope\n").empty());
  EXPECT_TRUE(ParseProcCgroup("garbage without colons\n\n::\n").empty());
}

TEST(JobIdentityTest, SlurmStepsThatAreNotNumbers) {
  JobIdentity batch = ParseProcCgroup("0::/system.slice/slurmstepd.scope/job_77/step_batch/user\n");
  EXPECT_EQ(batch.slurm_job, "77");
  EXPECT_EQ(batch.slurm_step, "batch");
  // A node running several slurmd names its hierarchy after the node.
  JobIdentity multi = ParseProcCgroup("4:cpuset:/slurm_node17/uid_0/job_78/step_extern\n");
  EXPECT_EQ(multi.JobName(), "slurm 78.extern");
}

TEST(JobIdentityTest, EnvironFillsGapsButTheCgroupPathWins) {
  JobIdentity id = ParseProcCgroup("0::/system.slice/slurmstepd.scope/job_10/step_2\n");
  std::string_view env = "SLURM_JOB_ID=11\0SLURM_STEP_ID=0\0SLURM_JOB_NAME=other\0"sv;
  ApplyEnviron(env, id);
  EXPECT_EQ(id.slurm_job, "10");
  EXPECT_EQ(id.slurm_step, "2");
  EXPECT_EQ(id.slurm_job_name, "");  // the name of another job is not this one's
  JobIdentity bare;
  ApplyEnviron("SLURM_JOBID=12\0SLURM_STEPID=3\0MY_POD_NAME=a\0"sv, bare);
  EXPECT_EQ(bare.JobName(), "a");
  EXPECT_EQ(bare.slurm_job, "12");
  EXPECT_EQ(bare.slurm_step, "3");
}

TEST(JobIdentityTest, PodResourcesSocketIsDetectedNotQueried) {
  fs::path root = fs::temp_directory_path() / fmt::format("gpuwhy_jobs_{}", ::getpid());
  fs::create_directories(root / "proc/4242");
  fs::copy_file(kJobs + "v1/proc/4242/cgroup", root / "proc/4242/cgroup");
  EXPECT_FALSE(HasPodResourcesSocket(root.string()));
  int fd = BindPodResourcesSocket(root);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(HasPodResourcesSocket(root.string()));
  JobIdentity id = ReadJobIdentity(root.string(), 4242);
  EXPECT_TRUE(id.pod_resources_socket);
  EXPECT_NE(id.Describe().find("pod-resources socket is present"), std::string::npos)
      << id.Describe();
  ::close(fd);
  fs::remove_all(root);
}

TEST(JobIdentityTest, CacheReadsOnceAndForgetsProcessesGone) {
  JobIdentityCache cache(kJobs + "v2");
  cache.Update({4242, 5151});
  EXPECT_EQ(cache.known().size(), 2u);
  EXPECT_EQ(cache.Get(5151).slurm_job, "4242");
  cache.Update({5151});
  EXPECT_EQ(cache.known().count(4242), 0u);
  EXPECT_EQ(PidOfEntity("pid 4242"), 4242);
  EXPECT_EQ(PidOfEntity("tid 4242"), 0);
  EXPECT_EQ(PidOfEntity("pid 12345678901234"), 0);
}

}  // namespace job_identity_test
}  // namespace gpuwhy
