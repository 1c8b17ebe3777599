// Runs the user's command for `gpuwhy run`: its stdin/stdout/stderr are inherited untouched,
// SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to gpuwhy are forwarded to it (except those the
// kernel sent to the process group they share, which it has already had: one Ctrl-C reaches it
// once), and its exit code is passed through (128 + N when it died of signal N, as shells
// report it).
//
// The command runs under a guardian process (collect/process_tree_guard.h) that owns its
// whole process tree: when the command exits, what it left running is ended; when gpuwhy dies
// (even by SIGKILL) the whole tree is ended; a SIGTERM or SIGHUP the command ignores is
// followed by SIGKILL after the grace period.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

// SIGTERM to SIGKILL, by default: Docker's `stop` default; Kubernetes and Slurm give 30 s.
inline constexpr int64_t kDefaultKillAfterMs = 10000;

class ProcessRunner {
 public:
  explicit ProcessRunner(int64_t kill_after_ms = kDefaultKillAfterMs)
      : kill_after_ms_(kill_after_ms) {}
  // Starts |argv| (argv[0] looked up in PATH). Errors when it cannot be started.
  // |environment| ("NAME=VALUE" entries) replaces or adds to the command's copy of gpuwhy's
  // environment; gpuwhy's own stays as it was.
  Status Start(const std::vector<std::string>& argv,
               const std::vector<std::string>& environment = {});
  pid_t pid() const { return pid_; }
  // Non-blocking: true once the command has exited; exit_code() is then valid. Also sends
  // SIGKILL to the tree once a forwarded SIGTERM or SIGHUP is kill_after_ms old.
  bool Poll();
  int exit_code() const { return exit_code_; }
  // Ends the tree (SIGTERM, SIGKILL after the grace period) and waits for the guardian.
  ~ProcessRunner();
  ProcessRunner(const ProcessRunner&) = delete;
  ProcessRunner& operator=(const ProcessRunner&) = delete;

 private:
  void RestoreSignals();

  int64_t kill_after_ms_;
  pid_t pid_ = 0;        // the command
  pid_t guard_ = 0;      // its guardian, gpuwhy's child
  int lifeline_ = -1;    // write end: closing it (or gpuwhy's death) ends the tree
  int status_ = -1;      // read end of the guardian's reports
  bool killed_ = false;  // SIGKILL asked for
  int exit_code_ = -1;
};

}  // namespace gpuwhy
