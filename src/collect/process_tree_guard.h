// The guardian of `gpuwhy run`'s job: a small process forked by gpuwhy that starts the job as
// its own child and owns the job's whole process tree (issue 38). It is the tree's subreaper
// (PR_SET_CHILD_SUBREAPER), so every process the job leaves behind, a `sleep 600 &` of a shell,
// a worker that called setsid(), is re-parented to it rather than to PID 1, and can be found
// by walking /proc from the guardian down. It ends the tree:
// - when the job's main process exits (what it left running gets SIGTERM, then SIGKILL
//   after the grace period),
// - when gpuwhy dies, even by SIGKILL (the lifeline pipe, whose only writer is gpuwhy, reads
//   end of file): SIGTERM, then SIGKILL after the grace period,
// - when gpuwhy asks (kGuardKillNow on the lifeline: a job that ignored SIGTERM past the
//   grace period): SIGKILL.
// It reports the job's pid and exit status on the status pipe and ignores the terminal's
// signals, which reach the job directly (they share gpuwhy's process group).
//
// Runs between fork and _exit without exec: it uses system calls only (no malloc, no stdio),
// so that a lock another thread of gpuwhy held at fork cannot hang it.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace gpuwhy {

// What the guardian writes on the status pipe, one record per event (atomic: < PIPE_BUF).
struct GuardMessage {
  enum Kind : int32_t { kStarted = 1, kExecFailed = 2, kExited = 3 };
  int32_t kind = 0;
  int32_t value = 0;  // kStarted: the job's pid; kExecFailed: errno; kExited: wait status
};

// gpuwhy writes this byte on the lifeline to have the tree SIGKILLed at once.
inline constexpr char kGuardKillNow = 'K';

struct GuardLaunch {
  char* const* argv = nullptr;  // argv[0] is looked up in PATH
  char* const* envp = nullptr;  // nullptr: gpuwhy's own environment
  int lifeline_fd = -1;         // read end; close-on-exec
  int status_fd = -1;           // write end; close-on-exec
  int64_t grace_ms = 10000;     // SIGTERM to SIGKILL
};

// The guardian's whole life, in the child of fork(); never returns.
[[noreturn]] void RunProcessTreeGuard(const GuardLaunch& launch);

}  // namespace gpuwhy
