#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace gpuwhy {
namespace {

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string NameOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A new file beside |target| that no other writer (thread or process) can have chosen.
int CreateTemporary(const std::string& target, std::string& temp) {
  static std::atomic<unsigned> counter{0};
  const std::string stem = DirectoryOf(target) + "/." + NameOf(target) + ".gpuwhy-tmp-" +
                           std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp = stem + std::to_string(counter.fetch_add(1));
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

Status WriteGzip(AtomicFile& file, std::string_view content, int level) {
  int fd = ::dup(file.fd());
  const std::string mode = "wb" + std::to_string(level);
  gzFile out = fd < 0 ? nullptr : gzdopen(fd, mode.c_str());
  if (out == nullptr) {
    if (fd >= 0) ::close(fd);
    return IoError("{}: cannot create: {}", file.path(), std::strerror(errno));
  }
  for (size_t done = 0; done < content.size();) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(content.size() - done, 1u << 30));
    if (gzwrite(out, content.data() + done, chunk) != static_cast<int>(chunk)) {
      int errnum = 0;
      std::string why = gzerror(out, &errnum);
      gzclose(out);
      return IoError("{}: write failed: {}", file.path(), why);
    }
    done += chunk;
  }
  if (gzclose(out) != Z_OK)
    return IoError("{}: write failed: {}", file.path(), std::strerror(errno));
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return IoError("{}: cannot create: {}", path, std::strerror(errno));
    return std::unique_ptr<AtomicFile>(new AtomicFile(path, path, "", fd));
  }
  std::string target = path;
  if (exists) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) != nullptr) target = resolved;
  }
  std::string temp;
  int fd = CreateTemporary(target, temp);
  if (fd < 0) return IoError("{}: cannot create: {}", path, std::strerror(errno));
  if (exists) ::fchmod(fd, st.st_mode & 07777);  // the new file keeps the old one's permissions
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, target, temp, fd));
}

AtomicFile::~AtomicFile() { Discard(); }

void AtomicFile::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

Status AtomicFile::Write(std::string_view bytes) {
  if (fd_ < 0) return Internal("{}: write after commit", path_);
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("{}: write failed: {}", path_, std::strerror(errno));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status AtomicFile::Commit() {
  if (fd_ < 0) return Internal("{}: committed twice", path_);
  if (temp_.empty()) {  // in place: a device or a FIFO
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return IoError("{}: write failed: {}", path_, std::strerror(errno));
    return Status::Ok();
  }
  const int error = SyncAndClose(fd_);
  fd_ = -1;
  if (error != 0) {
    Status failed = IoError("{}: write failed: {}", path_, std::strerror(error));
    Discard();
    return failed;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    Status failed = IoError("{}: cannot replace: {}", path_, std::strerror(errno));
    Discard();
    return failed;
  }
  temp_.clear();
  SyncDirectoryOf(target_);
  return Status::Ok();
}

int SyncAndClose(int fd, bool sync) {
  int error = sync && ::fsync(fd) != 0 ? errno : 0;
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

void SyncDirectoryOf(const std::string& path) {
  int fd = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: the rename is already visible
  ::close(fd);
}

Status WriteFileAtomically(const std::string& path, std::string_view content, int gzip_level) {
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  RETURN_IF_ERROR(gzip_level > 0 ? WriteGzip(*file, content, gzip_level) : file->Write(content));
  return file->Commit();
}

}  // namespace gpuwhy
