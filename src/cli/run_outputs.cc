#include "cli/run_outputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/partial_file.h"
#include "cli/report_output.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// The same file: the same name once "." and ".." and symlinks are resolved, or (both
// existing) the same inode, as a hard link is.
bool SameOutput(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a), ea);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b), eb);
  if (!ea && !eb && ca == cb) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// A file can be made beside |path| (or, for a device such as /dev/stderr, it opens for
// writing): what WriteOutput will need once the job is over.
Status CheckWritable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return InvalidArgument("{}: is a directory", path);
    if (!S_ISREG(st.st_mode)) {
      int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return IoError("{}: cannot write: {}", path, std::strerror(errno));
      ::close(fd);
      return Status::Ok();
    }
  }
  std::string probe;
  int fd = CreatePartialFile(path, 0600, probe);
  if (fd < 0) return IoError("{}: cannot write: {}", path, std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

}  // namespace

Status CheckRunOutputs(const RunOptions& options) {
  if (!options.recording.empty() && !options.report.empty() &&
      SameOutput(options.recording, options.report)) {
    return InvalidArgument(
        "-o and --report both name {}: the report would replace the "
        "recording",
        options.report);
  }
  for (const std::string& output : {options.recording, options.report}) {
    RETURN_IF_ERROR(CheckOutputIsNotAnInput(output, {options.trace_dir, options.pipeline.config}));
  }
  if (!options.report.empty()) RETURN_IF_ERROR(CheckWritable(options.report));
  return Status::Ok();
}

}  // namespace gpuwhy
