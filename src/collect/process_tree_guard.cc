#include "collect/process_tree_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>

namespace gpuwhy {
namespace {

// The signals a terminal or a scheduler sends: meant for the job, not for its guardian.
constexpr int kIgnored[] = {SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGPIPE, SIGTSTP};
struct sigaction g_job_dispositions[std::size(kIgnored)];

// Processes seen in one /proc walk. A tree larger than this is ended over several walks.
constexpr int kMaxTreeProcesses = 16384;
pid_t g_pids[kMaxTreeProcesses];
pid_t g_parents[kMaxTreeProcesses];
bool g_in_tree[kMaxTreeProcesses];

int64_t NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

void SleepMs(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

void Send(int fd, GuardMessage::Kind kind, int32_t value) {
  GuardMessage message{kind, value};
  // gpuwhy may be gone (EPIPE, SIGPIPE ignored): the tree is ended all the same.
  (void)!write(fd, &message, sizeof(message));
}

// A decimal number at |text|, or -1.
pid_t ParsePid(const char* text) {
  pid_t value = 0;
  if (*text == '\0') return -1;
  for (; *text != '\0'; ++text) {
    if (*text < '0' || *text > '9' || value > 100000000) return -1;
    value = value * 10 + (*text - '0');
  }
  return value;
}

// The parent of |pid| from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold
// spaces and parentheses, so the last ')' is searched), or -1.
pid_t ParentOf(const char* name) {
  char path[64] = "/proc/";
  int at = 6;
  for (const char* c = name; *c != '\0' && at < 50; ++c) path[at++] = *c;
  const char* tail = "/stat";
  for (const char* c = tail; *c != '\0'; ++c) path[at++] = *c;
  path[at] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char* close_paren = nullptr;
  for (char* c = buf; *c != '\0'; ++c) {
    if (*c == ')') close_paren = c;
  }
  if (close_paren == nullptr || close_paren[1] != ' ' || close_paren[2] == '\0') return -1;
  char* field = close_paren + 4;  // ") S " then ppid
  pid_t ppid = 0;
  for (; *field >= '0' && *field <= '9'; ++field) ppid = ppid * 10 + (*field - '0');
  return ppid;
}

// Sends |sig| to every process below this one; returns how many were found.
int SignalTree(int sig) {
  int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  int count = 0;
  alignas(8) char buf[8192];
  for (;;) {
    long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      auto* entry = reinterpret_cast<struct dirent64*>(buf + at);
      at += entry->d_reclen;
      pid_t pid = ParsePid(entry->d_name);
      if (pid <= 0 || count >= kMaxTreeProcesses) continue;
      pid_t parent = ParentOf(entry->d_name);
      if (parent < 0) continue;
      g_pids[count] = pid;
      g_parents[count] = parent;
      g_in_tree[count] = false;
      ++count;
    }
  }
  close(fd);
  // Mark the descendants of this process: repeat until no new one is found.
  const pid_t self = getpid();
  int found = 0;
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < count; ++i) {
      if (g_in_tree[i]) continue;
      bool below = g_parents[i] == self;
      for (int j = 0; j < count && !below; ++j) below = g_in_tree[j] && g_pids[j] == g_parents[i];
      if (below) {
        g_in_tree[i] = true;
        grew = true;
        ++found;
      }
    }
  }
  for (int i = 0; i < count; ++i) {
    if (g_in_tree[i]) kill(g_pids[i], sig);
  }
  return found;
}

// Reaps every exited child; reports the job's status. False once no child is left.
bool ReapChildren(pid_t job, bool& job_reported, int status_fd) {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0) return true;
    if (pid < 0) return errno != ECHILD;
    if (pid == job && !job_reported) {
      job_reported = true;
      Send(status_fd, GuardMessage::kExited, status);
    }
  }
}

enum class Ending { kNone, kTerminate, kKillNow };

Ending ReadLifeline(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return Ending::kNone;
  char byte = 0;
  ssize_t n = read(fd, &byte, 1);
  if (n == 0) return Ending::kTerminate;  // gpuwhy is gone, or done with the job
  if (n == 1 && byte == kGuardKillNow) return Ending::kKillNow;
  return n < 0 && errno == EINTR ? Ending::kNone : Ending::kTerminate;
}

[[noreturn]] void StartJob(const GuardLaunch& launch, pid_t guardian, int exec_error_fd) {
  for (size_t i = 0; i < std::size(kIgnored); ++i)
    sigaction(kIgnored[i], &g_job_dispositions[i], nullptr);
  // The job dies with its guardian too (SIGTERM lets it clean up); kept across exec except
  // for a set-user-ID program. A guardian gone before the prctl is seen by the parent check.
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != guardian) _exit(127);
  if (launch.envp == nullptr) {
    execvp(launch.argv[0], launch.argv);
  } else {
    execvpe(launch.argv[0], launch.argv, launch.envp);
  }
  int err = errno;
  (void)!write(exec_error_fd, &err, sizeof(err));
  _exit(127);
}

// SIGTERM to the tree, then SIGKILL to what is left after the grace period; returns once no
// child is left (or a process that SIGKILL cannot end, stuck in the kernel, has been given
// ten seconds).
void EndTree(Ending ending, int64_t grace_ms, pid_t job, bool& job_reported, int status_fd) {
  // The job by its pid as well: where /proc cannot be read, the walk finds nothing.
  if (!job_reported) kill(job, ending == Ending::kKillNow ? SIGKILL : SIGTERM);
  if (ending != Ending::kKillNow) {
    SignalTree(SIGTERM);
    const int64_t deadline = NowMs() + grace_ms;
    while (NowMs() < deadline) {
      if (!ReapChildren(job, job_reported, status_fd)) return;
      SleepMs(20);
    }
  }
  const int64_t give_up = NowMs() + 10000;
  while (NowMs() < give_up) {
    if (!job_reported) kill(job, SIGKILL);
    SignalTree(SIGKILL);
    if (!ReapChildren(job, job_reported, status_fd)) return;
    SleepMs(10);
  }
}

}  // namespace

void RunProcessTreeGuard(const GuardLaunch& launch) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (size_t i = 0; i < std::size(kIgnored); ++i)
    sigaction(kIgnored[i], &ignore, &g_job_dispositions[i]);
  // gpuwhy's own handlers (it forwards signals) are not the job's: the job starts with what
  // gpuwhy started with, which StartJob restores. A handler cannot survive exec anyway.
  for (struct sigaction& saved : g_job_dispositions) {
    if (saved.sa_handler != SIG_IGN) {
      saved = {};
      saved.sa_handler = SIG_DFL;
    }
  }
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    Send(launch.status_fd, GuardMessage::kExecFailed, errno);
    _exit(0);
  }
  const pid_t guardian = getpid();
  const pid_t job = fork();
  if (job < 0) {
    Send(launch.status_fd, GuardMessage::kExecFailed, errno);
    _exit(0);
  }
  if (job == 0) {
    close(exec_error[0]);
    StartJob(launch, guardian, exec_error[1]);
  }
  close(exec_error[1]);
  int err = 0;
  bool job_reported = false;
  if (read(exec_error[0], &err, sizeof(err)) == sizeof(err)) {
    waitpid(job, nullptr, 0);
    Send(launch.status_fd, GuardMessage::kExecFailed, err);
    _exit(0);
  }
  close(exec_error[0]);
  Send(launch.status_fd, GuardMessage::kStarted, job);
  Ending ending = Ending::kNone;
  while (ending == Ending::kNone && !job_reported) {
    ending = ReadLifeline(launch.lifeline_fd, 50);
    ReapChildren(job, job_reported, launch.status_fd);
  }
  EndTree(ending, launch.grace_ms, job, job_reported, launch.status_fd);
  _exit(0);
}

}  // namespace gpuwhy
