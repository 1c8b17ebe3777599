// Which job a process works for, as its scheduler names it: the Kubernetes pod (UID from the
// cgroup path; namespace and name from the downward-API environment), the Slurm job and step
// (cgroup path, else SLURM_JOB_ID / SLURM_STEP_ID), and the container (docker, containerd,
// cri-o, podman id from the cgroup path). Read from /proc/PID/cgroup and /proc/PID/environ
// under an injectable root ("/" live, a fixture tree in tests), cgroup v1 and v2 layouts.
// docs/job-identity.md lists the layouts and what each field comes from.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy {

struct JobIdentity {
  std::string command;        // /proc/PID/comm ("" when gone)
  std::string pod_uid;        // "0b9d6c6e-…" (dashes), from the cgroup path
  std::string pod_namespace;  // from the environment (POD_NAMESPACE, …)
  std::string pod_name;       // from the environment (POD_NAME, …)
  std::string slurm_job;      // "4242"
  std::string slurm_step;     // "0", "batch", "extern", "interactive"
  std::string slurm_job_name;
  std::string container_runtime;      // "docker", "containerd", "cri-o", "podman"; "" when unsaid
  std::string container_id;           // full id as the cgroup path gives it
  bool environ_unreadable = false;    // /proc/PID/environ could not be read (another user)
  bool pod_resources_socket = false;  // the kubelet's pod-resources socket exists on this host

  bool empty() const {
    return pod_uid.empty() && pod_name.empty() && slurm_job.empty() && container_id.empty();
  }
  // One short name for the job: "NAMESPACE/POD", "pod UID", "slurm JOB.STEP",
  // "RUNTIME ID12" (the container alone); "" when no scheduler names it.
  std::string JobName() const;
  // Everything known, for a report line: "pod ml/trainer-0 (uid …), container containerd
  // 3f2a9c1b07de"; says what could not be read and where names would come from.
  std::string Describe() const;
};

// The fields a /proc/PID/cgroup text names (every line: v1 has one per hierarchy, v2 one
// "0::/path"); lines fill what earlier lines left empty.
JobIdentity ParseProcCgroup(std::string_view text);

// Fills what |identity| lacks from a NUL-separated /proc/PID/environ text: the downward-API
// pod name and namespace, SLURM_JOB_ID, SLURM_STEP_ID, SLURM_JOB_NAME. The cgroup path wins
// where both speak (an environment can be inherited from outside the job).
void ApplyEnviron(std::string_view environ, JobIdentity& identity);

// Where the kubelet serves pod-resources (it names pods and their devices over gRPC, which
// gpuwhy does not speak: only its presence is reported).
inline constexpr std::string_view kPodResourcesSocket =
    "var/lib/kubelet/pod-resources/kubelet.sock";
bool HasPodResourcesSocket(const std::string& root);

// /proc/PID/cgroup and /proc/PID/environ under |root|.
JobIdentity ReadJobIdentity(const std::string& root, pid_t pid);

// Identities of the processes seen lately: read once per process, forgotten when it is no
// longer seen (a pid reused later is read again).
class JobIdentityCache {
 public:
  explicit JobIdentityCache(std::string root = "/") : root_(std::move(root)) {}
  // Reads the pids not known yet and forgets the ones not in |pids|.
  void Update(const std::vector<pid_t>& pids);
  // Reads |pid| if not known yet, keeping the others.
  const JobIdentity& Get(pid_t pid);
  const std::map<pid_t, JobIdentity>& known() const { return known_; }

 private:
  std::string root_;
  std::map<pid_t, JobIdentity> known_;
};

// The pid of a per-process series entity ("pid 1234"); 0 when it names none.
pid_t PidOfEntity(std::string_view entity);

}  // namespace gpuwhy
