#include "cli/profile_hook.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/atomic_file.h"
#include "profile_hook_source.h"

namespace gpuwhy {

namespace fs = std::filesystem;

namespace {

// |path| made (0700) if absent, then checked to be a real folder of ours that nobody else can
// write into or list: "" when it is, else why not.
std::string MakePrivateFolder(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return fmt::format("{}: cannot create: {}", path, std::strerror(errno));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fmt::format("{}: {}", path, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return fmt::format("{}: not a folder (a symlink?)", path);
  if (st.st_uid != ::geteuid()) return fmt::format("{}: owned by another user", path);
  if ((st.st_mode & 077) != 0) return fmt::format("{}: open to other users", path);
  return "";
}

StatusOr<std::string> PrivateParent() {
  std::vector<std::string> candidates;
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime != nullptr && runtime[0] == '/')
    candidates.push_back(std::string(runtime) + "/gpuwhy");
  const char* tmp = std::getenv("TMPDIR");
  candidates.push_back(fmt::format("{}/gpuwhy-{}", tmp && tmp[0] ? tmp : "/tmp", ::geteuid()));
  std::string why;
  for (const std::string& candidate : candidates) {
    std::string problem = MakePrivateFolder(candidate);
    if (problem.empty()) return candidate;
    why += (why.empty() ? "" : "; ") + problem;
  }
  return IoError("no private folder for the profiling hook ({}): remove it or set TMPDIR", why);
}

struct HookStages {
  int processes = 0;
  int loaded = 0;
  int python2 = 0;  // loaded by Python 2, which the profiler does not run on
  int torch = 0;
  int stepped = 0;
  int failed = 0;
  std::string first_failure;
};

HookStages ReadHookStages(const std::string& status_dir) {
  HookStages stages;
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(status_dir, ec), end; !ec && it != end; it.increment(ec))
    files.push_back(it->path());
  std::sort(files.begin(), files.end());  // the first failure named is the same every time
  for (const fs::path& file : files) {
    std::ifstream in(file);
    bool loaded = false, python2 = false, torch = false, stepped = false, failed = false;
    for (std::string line; std::getline(in, line);) {
      std::string stage = line.substr(0, line.find(' '));
      std::string detail = line.size() > stage.size() ? line.substr(stage.size() + 1) : "";
      loaded = loaded || stage == "loaded";
      python2 = python2 || stage == "python2";
      torch = torch || stage == "torch";
      stepped = stepped || stage == "stepped";
      if (stage == "failed" && !failed) {
        failed = true;
        if (stages.first_failure.empty()) stages.first_failure = detail;
      }
    }
    ++stages.processes;
    stages.loaded += loaded;
    stages.python2 += python2;
    stages.torch += torch;
    stages.stepped += stepped;
    stages.failed += failed;
  }
  return stages;
}

}  // namespace

Status ProfileRunFolder::Create() {
  StatusOr<std::string> parent = PrivateParent();
  if (!parent.ok()) return parent.status();
  std::string pattern = *parent + "/run-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    return IoError("{}: cannot create the run's folder: {}", pattern, std::strerror(errno));
  path_ = pattern;
  return Status::Ok();
}

ProfileRunFolder::~ProfileRunFolder() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

StatusOr<std::vector<std::string>> InstallProfileHook(const ProfileRunFolder& folder,
                                                      const std::string& trace_dir, int steps) {
  const std::string hook_dir = folder.hook_dir();
  for (const std::string& dir : {hook_dir, folder.status_dir()}) {
    if (::mkdir(dir.c_str(), 0700) != 0)
      return IoError("{}: cannot create the profiling hook's folder: {}", dir,
                     std::strerror(errno));
  }
  std::error_code ec;
  fs::create_directories(trace_dir, ec);
  if (ec) return IoError("{}: cannot create the trace folder: {}", trace_dir, ec.message());
  for (auto [name, text] : {std::pair{"_gpuwhy_autoprofile.py", kProfileHookSource},
                            std::pair{"sitecustomize.py", kProfileHookStartup}}) {
    if (Status written = WriteFileAtomically(hook_dir + "/" + name, text); !written.ok())
      return written;
  }
  std::string python_path = fs::absolute(hook_dir).string();
  const char* existing = std::getenv("PYTHONPATH");
  if (existing != nullptr && existing[0] != '\0') python_path += std::string(":") + existing;
  return std::vector<std::string>{
      "PYTHONPATH=" + python_path,
      "GPUWHY_PROFILE_DIR=" + fs::absolute(trace_dir).string(),
      "GPUWHY_PROFILE_STATUS=" + fs::absolute(folder.status_dir()).string(),
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

std::string ExplainProfileOutcome(const std::string& status_dir, int steps, size_t traces_written) {
  const HookStages stages = ReadHookStages(status_dir);
  if (traces_written > 0) {
    if (stages.failed == 0) return "";
    return fmt::format("{} process(es) wrote no trace: {}", stages.failed, stages.first_failure);
  }
  if (stages.failed > 0) return "no trace was written: " + stages.first_failure;
  if (stages.loaded == 0 && stages.python2 > 0) {
    return "no trace was written: the job runs Python 2; the profiling hook needs Python 3 "
           "(and torch)";
  }
  if (stages.loaded == 0) {
    return "no trace was written: no Python process of the job loaded gpuwhy's start-up hook "
           "(the job does not run Python, or runs it with -I, -E or -S, which ignore "
           "PYTHONPATH or sitecustomize, or replaces PYTHONPATH)";
  }
  if (stages.torch == 0) {
    return fmt::format(
        "no trace was written: the job never imported torch ({} Python "
        "process(es) loaded the hook)",
        stages.loaded);
  }
  if (stages.stepped == 0) {
    return "no trace was written: the job imported torch but stepped no torch.optim optimizer "
           "(gpuwhy.profile's p.step() counts the steps of a loop without one)";
  }
  return fmt::format(
      "no trace was written: the job stepped its optimizer but ended before the "
      "window ({} steps skipped, {} warmed up, {} recorded)",
      kProfileWaitSteps, kProfileWarmupSteps, steps);
}

}  // namespace gpuwhy
