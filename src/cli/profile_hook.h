// `gpuwhy run --profile`: the Python start-up hook that profiles a window of training steps
// without touching the script. The hook is the package's python/gpuwhy/_autoprofile.py and
// _sitecustomize.py, embedded at build time and written as _gpuwhy_autoprofile.py and
// sitecustomize.py into a private folder prepended to the job's PYTHONPATH; the latter chains
// a sitecustomize it shadows, and nothing happens until torch is imported.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace gpuwhy {

// Optimizer steps skipped, then warmed up, before the STEPS recorded ones (the package's
// gpuwhy.profile defaults).
inline constexpr int kProfileWaitSteps = 5;
inline constexpr int kProfileWarmupSteps = 2;
inline constexpr int kProfileDefaultSteps = 3;

// The run's own folder: the hook, the hook's status notes, and the traces unless
// --profile-dir keeps them elsewhere. Removed when the run is reported.
//
// The job's processes keep the hook's folder in PYTHONPATH and may outlive the run (a daemon
// it started). Under a shared temporary folder another local user could create the removed
// folder again and plant a sitecustomize.py there, which such a process would import. So run
// folders live in a parent only this user can write to and that gpuwhy never removes:
// $XDG_RUNTIME_DIR/gpuwhy or $TMPDIR/gpuwhy-UID (mode 0700, owned by us, not a symlink:
// checked, and refused otherwise).
class ProfileRunFolder {
 public:
  Status Create();
  const std::string& path() const { return path_; }
  std::string hook_dir() const { return path_ + "/hook"; }
  std::string status_dir() const { return path_ + "/status"; }
  ~ProfileRunFolder();

 private:
  std::string path_;
};

// Writes the hook into |folder| and returns the job's environment entries ("NAME=VALUE"):
// PYTHONPATH with the hook's folder first (the job's own PYTHONPATH after it),
// GPUWHY_PROFILE_DIR (absolute |trace_dir|, created), GPUWHY_PROFILE_STATUS,
// GPUWHY_PROFILE_STEPS, _WAIT and _WARMUP.
StatusOr<std::vector<std::string>> InstallProfileHook(const ProfileRunFolder& folder,
                                                      const std::string& trace_dir, int steps);

// The Kineto (or legacy profiler) traces under |trace_dir| written at or after |since_ns|
// (CLOCK_REALTIME), in name order.
std::vector<std::string> TracesWrittenSince(const std::string& trace_dir, int64_t since_ns);

// Why no trace came, from the hook's status notes (one file per process, lines "STAGE
// DETAIL": loaded, torch, stepped, trace, failed): "" when a trace came and nothing failed.
std::string ExplainProfileOutcome(const std::string& status_dir, int steps, size_t traces_written);

}  // namespace gpuwhy
