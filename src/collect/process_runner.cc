#include "collect/process_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "collect/process_tree_guard.h"

namespace gpuwhy {
namespace {

std::atomic<pid_t> g_child{0};
// When a SIGTERM or SIGHUP was last sent to gpuwhy (CLOCK_MONOTONIC ms; 0: never): the
// command has had it (forwarded, or from the kernel to the group) and must be gone within
// the grace period.
std::atomic<int64_t> g_terminate_asked_ms{0};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[std::size(kForwarded)];

int64_t MonotonicMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

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
  if ((sig == SIGTERM || sig == SIGHUP) && g_terminate_asked_ms.load() == 0)
    g_terminate_asked_ms = MonotonicMs();
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

enum class Read { kMessage, kNoneYet, kClosed };

// One whole report of the guardian; kClosed once the guardian has exited (or broke the pipe).
Read ReadMessage(int fd, GuardMessage& message) {
  for (;;) {
    ssize_t n = read(fd, &message, sizeof(message));
    if (n == sizeof(message)) return Read::kMessage;
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN ? Read::kNoneYet : Read::kClosed;
  }
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

Status ProcessRunner::Start(const std::vector<std::string>& argv,
                            const std::vector<std::string>& environment) {
  if (argv.empty()) return InvalidArgument("no command to run (gpuwhy run -- CMD ...)");
  std::vector<std::string> env_strings = ChildEnvironment(environment);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int lifeline[2];
  int status[2];
  if (pipe2(lifeline, O_CLOEXEC) != 0) return IoError("pipe: {}", std::strerror(errno));
  if (pipe2(status, O_CLOEXEC) != 0) {
    close(lifeline[0]);
    close(lifeline[1]);
    return IoError("pipe: {}", std::strerror(errno));
  }
  g_terminate_asked_ms = 0;
  pid_t guard = fork();
  if (guard < 0) {
    for (int fd : {lifeline[0], lifeline[1], status[0], status[1]}) close(fd);
    return IoError("fork: {}", std::strerror(errno));
  }
  if (guard == 0) {
    close(lifeline[1]);
    close(status[0]);
    GuardLaunch launch;
    launch.argv = args.data();
    launch.envp = environment.empty() ? nullptr : envp.data();
    launch.lifeline_fd = lifeline[0];
    launch.status_fd = status[1];
    launch.grace_ms = kill_after_ms_;
    RunProcessTreeGuard(launch);
  }
  close(lifeline[0]);
  close(status[1]);
  guard_ = guard;
  lifeline_ = lifeline[1];
  status_ = status[0];
  GuardMessage first;
  if (ReadMessage(status_, first) != Read::kMessage || first.kind != GuardMessage::kStarted) {
    const int err = first.kind == GuardMessage::kExecFailed ? first.value : ECHILD;
    close(lifeline_);
    close(status_);
    lifeline_ = status_ = -1;
    waitpid(guard_, nullptr, 0);
    guard_ = 0;
    return InvalidArgument("{}: cannot run: {}", argv[0], std::strerror(err));
  }
  fcntl(status_, F_SETFL, fcntl(status_, F_GETFL) | O_NONBLOCK);
  pid_ = first.value;
  g_child = pid_;
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
  GuardMessage message;
  Read read = Read::kMessage;
  while (exit_code_ < 0 && (read = ReadMessage(status_, message)) == Read::kMessage) {
    if (message.kind == GuardMessage::kExited) exit_code_ = ExitCodeOf(message.value);
  }
  if (exit_code_ < 0 && read == Read::kClosed) {
    // The guardian is gone without a word (killed by someone): the command's status is lost.
    exit_code_ = 128 + SIGKILL;
  }
  if (exit_code_ >= 0) {
    RestoreSignals();
    return true;
  }
  const int64_t asked = g_terminate_asked_ms.load();
  if (!killed_ && asked != 0 && MonotonicMs() - asked >= kill_after_ms_) {
    killed_ = true;
    (void)!write(lifeline_, &kGuardKillNow, 1);
  }
  return false;
}

void ProcessRunner::RestoreSignals() {
  if (g_child.load() != pid_) return;
  g_child = 0;
  for (size_t i = 0; i < std::size(kForwarded); ++i)
    sigaction(kForwarded[i], &g_previous[i], nullptr);
}

ProcessRunner::~ProcessRunner() {
  if (guard_ <= 0) return;
  // End of file on the lifeline: the guardian ends what is left of the tree (all of it, if
  // the command still runs), then exits.
  close(lifeline_);
  if (pid_ > 0) RestoreSignals();
  while (waitpid(guard_, nullptr, 0) < 0 && errno == EINTR) {
  }
  close(status_);
}

}  // namespace gpuwhy
