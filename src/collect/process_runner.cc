#include "collect/process_runner.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>

namespace gpuwhy {
namespace {

std::atomic<pid_t> g_child{0};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[std::size(kForwarded)];

// The kernel sends what the terminal generates (Ctrl-C, Ctrl-\) to the terminal's whole
// foreground process group, and a hangup to the group when the session leader goes. A child
// still in gpuwhy's group has then had its own copy: forwarding it would deliver one Ctrl-C
// twice (Python's second KeyboardInterrupt lands in the first one's cleanup). A signal a
// process sent to gpuwhy (kill PID, a scheduler, si_code SI_USER) is forwarded.
bool GroupAlreadyGotIt(int sig, const siginfo_t* info, pid_t child) {
  if (info == nullptr || info->si_code != SI_KERNEL) return false;
  // A session leader's SIGHUP is its own: the kernel sends it to the leader alone.
  if (sig == SIGHUP && getsid(0) == getpid()) return false;
  return getpgid(child) == getpgrp();
}

void Forward(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  pid_t child = g_child.load();
  if (child > 0 && !GroupAlreadyGotIt(sig, info, child)) kill(child, sig);
  errno = saved_errno;
}

// gpuwhy's environment with |overrides| ("NAME=VALUE") replacing entries of the same name;
// built before fork, so the child only has to exec.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    bool replaced = false;
    for (const std::string& o : overrides) replaced = replaced || name_of(o) == name_of(entry);
    if (!replaced) env.push_back(std::move(entry));
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

}  // namespace

Status ProcessRunner::Start(const std::vector<std::string>& argv,
                            const std::vector<std::string>& environment) {
  if (argv.empty()) return InvalidArgument("no command to run (gpuwhy run -- CMD ...)");
  std::vector<std::string> env_strings = ChildEnvironment(environment);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  // A pipe closed on exec tells the parent whether exec failed, and why.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return IoError("pipe: {}", std::strerror(errno));
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return IoError("fork: {}", std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    // The job dies with gpuwhy (SIGKILL, the OOM killer) instead of running on unrecorded:
    // SIGTERM lets it clean up. Kept across exec, except for a set-user-ID program. A gpuwhy
    // gone before the prctl is seen by the parent check.
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (environment.empty()) {
      execvp(args[0], args.data());
    } else {
      execvpe(args[0], args.data(), envp.data());
    }
    int err = errno;
    (void)!write(fds[1], &err, sizeof(err));
    _exit(127);
  }
  close(fds[1]);
  int err = 0;
  ssize_t n = read(fds[0], &err, sizeof(err));
  close(fds[0]);
  if (n == sizeof(err)) {
    waitpid(pid, nullptr, 0);
    return InvalidArgument("{}: cannot run: {}", argv[0], std::strerror(err));
  }
  pid_ = pid;
  g_child = pid;
  for (size_t i = 0; i < std::size(kForwarded); ++i) {
    struct sigaction action {};
    action.sa_sigaction = Forward;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(kForwarded[i], &action, &g_previous[i]);
  }
  return Status::Ok();
}

bool ProcessRunner::Poll() {
  if (exit_code_ >= 0) return true;
  if (pid_ <= 0) return true;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0) return false;
  if (r < 0) {
    exit_code_ = 1;
  } else if (WIFEXITED(status)) {
    exit_code_ = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    exit_code_ = 128 + WTERMSIG(status);
  } else {
    return false;  // stopped, not exited
  }
  g_child = 0;
  for (size_t i = 0; i < std::size(kForwarded); ++i)
    sigaction(kForwarded[i], &g_previous[i], nullptr);
  return true;
}

ProcessRunner::~ProcessRunner() {
  if (pid_ > 0 && exit_code_ < 0) {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    g_child = 0;
    for (size_t i = 0; i < std::size(kForwarded); ++i) {
      sigaction(kForwarded[i], &g_previous[i], nullptr);
    }
  }
}

}  // namespace gpuwhy
