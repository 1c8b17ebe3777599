// `gpuwhy run --profile`: the Python start-up hook that profiles a window of training steps
// without touching the script. The hook is the package's python/gpuwhy/_autoprofile.py,
// embedded at build time and written as sitecustomize.py into a folder prepended to the job's
// PYTHONPATH; it chains a sitecustomize it shadows and does nothing until torch is imported.
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

// Writes |hook_dir|/sitecustomize.py and returns the job's environment entries ("NAME=VALUE"):
// PYTHONPATH with |hook_dir| first (the job's own PYTHONPATH after it), GPUWHY_PROFILE_DIR
// (absolute |trace_dir|, created), GPUWHY_PROFILE_STEPS, _WAIT and _WARMUP.
StatusOr<std::vector<std::string>> InstallProfileHook(const std::string& hook_dir,
                                                      const std::string& trace_dir, int steps);

// The Kineto (or legacy profiler) traces under |trace_dir| written at or after |since_ns|
// (CLOCK_REALTIME), in name order.
std::vector<std::string> TracesWrittenSince(const std::string& trace_dir, int64_t since_ns);

}  // namespace gpuwhy
