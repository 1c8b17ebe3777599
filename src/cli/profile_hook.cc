#include "cli/profile_hook.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "base/atomic_file.h"
#include "profile_hook_source.h"

namespace gpuwhy {

namespace fs = std::filesystem;

StatusOr<std::vector<std::string>> InstallProfileHook(const std::string& hook_dir,
                                                      const std::string& trace_dir, int steps) {
  std::error_code ec;
  fs::create_directories(hook_dir, ec);
  if (ec)
    return IoError("{}: cannot create the profiling hook's folder: {}", hook_dir, ec.message());
  fs::create_directories(trace_dir, ec);
  if (ec) return IoError("{}: cannot create the trace folder: {}", trace_dir, ec.message());
  if (Status written = WriteFileAtomically((fs::path(hook_dir) / "sitecustomize.py").string(),
                                           kProfileHookSource);
      !written.ok()) {
    return written;
  }
  std::string python_path = fs::absolute(hook_dir).string();
  const char* existing = std::getenv("PYTHONPATH");
  if (existing != nullptr && existing[0] != '\0') python_path += std::string(":") + existing;
  return std::vector<std::string>{
      "PYTHONPATH=" + python_path,
      "GPUWHY_PROFILE_DIR=" + fs::absolute(trace_dir).string(),
      fmt::format("GPUWHY_PROFILE_STEPS={}", steps),
      fmt::format("GPUWHY_PROFILE_WAIT={}", kProfileWaitSteps),
      fmt::format("GPUWHY_PROFILE_WARMUP={}", kProfileWarmupSteps),
  };
}

std::vector<std::string> TracesWrittenSince(const std::string& trace_dir, int64_t since_ns) {
  std::vector<std::string> out;
  std::error_code ec;
  auto since = std::chrono::file_clock::from_sys(
      std::chrono::sys_time<std::chrono::nanoseconds>(std::chrono::nanoseconds(since_ns)));
  for (fs::recursive_directory_iterator it(trace_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool trace = name.ends_with(".pt.trace.json") || name.ends_with(".pt.trace.json.gz");
    if (!trace || !it->is_regular_file(ec)) continue;
    if (it->last_write_time(ec) < since) continue;
    out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpuwhy
