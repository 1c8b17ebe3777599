#include "collect/job_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>

#include <fmt/format.h>

namespace gpuwhy {
namespace {

// /proc/PID/environ of a big job is a few KiB; the bound keeps a hostile one from costing more.
constexpr size_t kMaxProcFileBytes = 1 << 20;

// The text, and whether the file could be opened.
std::pair<std::string, bool> ReadProcFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {{}, false};
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0 || out.size() >= kMaxProcFileBytes) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return {std::move(out), true};
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    size_t at = text.find(sep);
    std::string_view part = text.substr(0, at);
    if (!part.empty()) parts.push_back(part);
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return parts;
}

bool AllOf(std::string_view s, int (*pred)(int)) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [pred](char c) { return pred(static_cast<unsigned char>(c)); });
}

// Container ids are 64 hex digits (docker, containerd, cri-o, podman alike); 12 is docker's
// short form, the least a path is taken to name one by.
bool IsContainerId(std::string_view s) { return s.size() >= 12 && AllOf(s, isxdigit); }

// A pod UID as the cgroup path spells it: dashes (cgroupfs driver) or underscores (systemd).
bool IsPodUid(std::string_view s) {
  return s.size() == 36 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_';
         });
}

std::string DashedUid(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

// "PREFIX<id>.scope" -> id; "" when |part| is not of that form.
std::string_view ScopeId(std::string_view part, std::string_view prefix) {
  if (!part.starts_with(prefix)) return {};
  part.remove_prefix(prefix.size());
  if (part.ends_with(".scope")) part.remove_suffix(6);
  return part;
}

struct ScopeRuntime {
  std::string_view prefix;
  std::string_view runtime;
};
// Systemd-driver scopes (cgroup v2, and v1 with the systemd driver). The conmon scopes of
// cri-o and podman hold the monitor, not the container, and do not match (their "id" starts
// with "conmon-").
constexpr ScopeRuntime kScopes[] = {
    {"cri-containerd-", "containerd"},
    {"docker-", "docker"},
    {"crio-", "cri-o"},
    {"libpod-", "podman"},
};

void ParseContainer(const std::vector<std::string_view>& parts, bool kube, JobIdentity& out) {
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    for (const ScopeRuntime& scope : kScopes) {
      std::string_view id = ScopeId(part, scope.prefix);
      if (IsContainerId(id)) {
        out.container_runtime = scope.runtime;
        out.container_id = id;
      }
    }
    if (!IsContainerId(part) || i == 0) continue;
    // cgroupfs driver (v1): /docker/ID, /libpod_parent/libpod-ID, /kubepods/…/podUID/ID.
    std::string_view parent = parts[i - 1];
    if (parent == "docker") {
      out.container_runtime = "docker";
      out.container_id = part;
    } else if (kube && parent.starts_with("pod")) {
      out.container_runtime.clear();  // the kubelet's runtime is not in a cgroupfs path
      out.container_id = part;
    }
  }
}

void ParsePod(const std::vector<std::string_view>& parts, JobIdentity& out) {
  for (std::string_view part : parts) {
    // v1 cgroupfs: "pod<uid>"; systemd: "kubepods-burstable-pod<uid_>.slice",
    // "kubepods-pod<uid_>.slice" (guaranteed QoS).
    std::string_view uid;
    if (part.starts_with("pod")) {
      uid = part.substr(3);
    } else if (part.starts_with("kubepods-") && part.ends_with(".slice")) {
      size_t at = part.rfind("-pod");
      if (at != std::string_view::npos) uid = part.substr(at + 4, part.size() - at - 4 - 6);
    }
    if (IsPodUid(uid)) out.pod_uid = DashedUid(uid);
  }
}

void ParseSlurm(const std::vector<std::string_view>& parts, JobIdentity& out) {
  // v1: /slurm/uid_N/job_N/step_S/…; v2: /system.slice/slurmstepd.scope/job_N/step_S/…;
  // nodes running several slurmd use "slurm_NODE" and "NODE_slurmstepd.scope".
  bool under_slurm = false;
  for (std::string_view part : parts) {
    if (part.starts_with("slurm") || part.ends_with("slurmstepd.scope")) under_slurm = true;
    if (!under_slurm) continue;
    if (part.starts_with("job_") && AllOf(part.substr(4), isdigit)) {
      out.slurm_job = part.substr(4);
    } else if (part.starts_with("step_") && part.size() > 5 && !out.slurm_job.empty()) {
      out.slurm_step = part.substr(5);
    }
  }
}

// The first of |names| set in |env|.
std::string FirstOf(const std::map<std::string_view, std::string_view>& env,
                    std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    auto it = env.find(name);
    if (it != env.end() && !it->second.empty()) return std::string(it->second);
  }
  return {};
}

void FillIfEmpty(std::string& field, std::string value) {
  if (field.empty()) field = std::move(value);
}

}  // namespace

JobIdentity ParseProcCgroup(std::string_view text) {
  JobIdentity out;
  for (std::string_view line : Split(text, '\n')) {
    // "hierarchy-ID:controllers:path"; the path may itself hold ':'.
    size_t first = line.find(':');
    size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    std::vector<std::string_view> parts = Split(line.substr(second + 1), '/');
    JobIdentity line_identity;
    bool kube = std::any_of(parts.begin(), parts.end(),
                            [](std::string_view p) { return p.starts_with("kubepods"); });
    if (kube) ParsePod(parts, line_identity);
    ParseContainer(parts, kube, line_identity);
    ParseSlurm(parts, line_identity);
    FillIfEmpty(out.pod_uid, line_identity.pod_uid);
    FillIfEmpty(out.slurm_job, line_identity.slurm_job);
    if (out.slurm_job == line_identity.slurm_job)
      FillIfEmpty(out.slurm_step, line_identity.slurm_step);
    if (out.container_id.empty()) {
      out.container_id = line_identity.container_id;
      out.container_runtime = line_identity.container_runtime;
    }
  }
  return out;
}

void ApplyEnviron(std::string_view environ, JobIdentity& identity) {
  std::map<std::string_view, std::string_view> env;
  for (std::string_view entry : Split(environ, '\0')) {
    size_t eq = entry.find('=');
    if (eq != std::string_view::npos) env.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  // The downward API names the variables as the pod spec says; these are the names its
  // documentation and the common charts use.
  FillIfEmpty(identity.pod_name,
              FirstOf(env, {"POD_NAME", "MY_POD_NAME", "K8S_POD_NAME", "KUBERNETES_POD_NAME"}));
  FillIfEmpty(identity.pod_namespace,
              FirstOf(env, {"POD_NAMESPACE", "MY_POD_NAMESPACE", "K8S_POD_NAMESPACE",
                            "KUBERNETES_POD_NAMESPACE"}));
  if (identity.pod_uid.empty()) {
    std::string uid = FirstOf(env, {"POD_UID", "MY_POD_UID", "K8S_POD_UID"});
    if (IsPodUid(uid)) identity.pod_uid = DashedUid(uid);
  }
  std::string job = FirstOf(env, {"SLURM_JOB_ID", "SLURM_JOBID"});
  if (identity.slurm_job.empty() && AllOf(job, isdigit)) {
    identity.slurm_job = job;
    identity.slurm_step = FirstOf(env, {"SLURM_STEP_ID", "SLURM_STEPID"});
  }
  if (!identity.slurm_job.empty() && (job.empty() || job == identity.slurm_job)) {
    FillIfEmpty(identity.slurm_job_name, FirstOf(env, {"SLURM_JOB_NAME"}));
  }
}

bool HasPodResourcesSocket(const std::string& root) {
  struct stat st {};
  std::string path = root + "/" + std::string(kPodResourcesSocket);
  return ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

JobIdentity ReadJobIdentity(const std::string& root, pid_t pid) {
  std::string dir = fmt::format("{}/proc/{}/", root, pid);
  JobIdentity identity = ParseProcCgroup(ReadProcFile(dir + "cgroup").first);
  auto [environ, readable] = ReadProcFile(dir + "environ");
  identity.environ_unreadable = !readable;
  identity.command = ReadProcFile(dir + "comm").first;
  while (!identity.command.empty() &&
         std::isspace(static_cast<unsigned char>(identity.command.back()))) {
    identity.command.pop_back();
  }
  ApplyEnviron(environ, identity);
  if (!identity.pod_uid.empty() && identity.pod_name.empty()) {
    identity.pod_resources_socket = HasPodResourcesSocket(root);
  }
  return identity;
}

std::string JobIdentity::JobName() const {
  if (!pod_name.empty()) {
    return pod_namespace.empty() ? pod_name : pod_namespace + "/" + pod_name;
  }
  if (!pod_uid.empty()) return "pod " + pod_uid;
  if (!slurm_job.empty()) {
    return "slurm " + slurm_job + (slurm_step.empty() ? "" : "." + slurm_step);
  }
  if (!container_id.empty()) {
    return (container_runtime.empty() ? "container" : container_runtime) + " " +
           container_id.substr(0, 12);
  }
  return {};
}

std::string JobIdentity::Describe() const {
  std::vector<std::string> parts;
  if (!pod_uid.empty() || !pod_name.empty()) {
    std::string pod = "pod";
    if (!pod_name.empty()) {
      pod += " " + (pod_namespace.empty() ? pod_name : pod_namespace + "/" + pod_name);
    }
    if (!pod_uid.empty()) pod += (pod_name.empty() ? " uid " : " (uid ") + pod_uid;
    if (!pod_uid.empty() && !pod_name.empty()) pod += ")";
    if (pod_name.empty()) {
      pod += environ_unreadable ? " (name: its environment is not readable by this user"
                                : " (name: no POD_NAME in its environment";
      pod += pod_resources_socket ? "; the kubelet pod-resources socket is present, which gpuwhy "
                                    "does not query)"
                                  : ")";
    }
    parts.push_back(std::move(pod));
  }
  if (!slurm_job.empty()) {
    std::string slurm = "slurm job " + slurm_job;
    if (!slurm_step.empty()) slurm += " step " + slurm_step;
    if (!slurm_job_name.empty()) slurm += " (" + slurm_job_name + ")";
    parts.push_back(std::move(slurm));
  }
  if (!container_id.empty()) {
    parts.push_back("container " + (container_runtime.empty() ? "" : container_runtime + " ") +
                    container_id.substr(0, 12));
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

void JobIdentityCache::Update(const std::vector<pid_t>& pids) {
  std::set<pid_t> seen(pids.begin(), pids.end());
  std::erase_if(known_, [&](const auto& entry) { return !seen.contains(entry.first); });
  for (pid_t pid : seen) Get(pid);
}

const JobIdentity& JobIdentityCache::Get(pid_t pid) {
  auto it = known_.find(pid);
  if (it == known_.end()) it = known_.emplace(pid, ReadJobIdentity(root_, pid)).first;
  return it->second;
}

pid_t PidOfEntity(std::string_view entity) {
  if (!entity.starts_with("pid ")) return 0;
  entity.remove_prefix(4);
  if (!AllOf(entity, isdigit) || entity.size() > 9) return 0;
  return static_cast<pid_t>(std::stol(std::string(entity)));
}

}  // namespace gpuwhy
