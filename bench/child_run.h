// Shared by the import benchmarks: one measured run in a fresh child process, so its peak
// resident set (getrusage of the child) and CPU time are that run's alone.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <vector>

namespace gpuwhy::bench {

struct ChildUsage {
  double seconds = 0;      // wall time of |work|, measured in the child
  long max_rss_kb = 0;     // the child's peak resident set
  double cpu_seconds = 0;  // user + system time of the child: robust on a loaded machine
};

// Runs |work(result)| in a child; |result| comes back through a pipe. False when the child
// failed (|work| returned false, or it died).
template <typename Result, typename Work>
bool RunInChild(Work work, Result& result, ChildUsage& usage) {
  static_assert(std::is_trivially_copyable_v<Result>);
  struct Message {
    Result result;
    double seconds;
  };
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Message m{};
    auto start = std::chrono::steady_clock::now();
    if (!work(m.result)) _exit(2);
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (write(fds[1], &m, sizeof(m)) != sizeof(m)) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  Message m{};
  bool ok = read(fds[0], &m, sizeof(m)) == sizeof(m);
  close(fds[0]);
  int status = 0;
  struct rusage rusage {};
  wait4(child, &status, 0, &rusage);
  result = m.result;
  usage.seconds = m.seconds;
  usage.max_rss_kb = rusage.ru_maxrss;
  auto to_seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  usage.cpu_seconds = to_seconds(rusage.ru_utime) + to_seconds(rusage.ru_stime);
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace gpuwhy::bench
