#include "collect/recording_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "base/atomic_file.h"
#include "base/partial_file.h"

namespace gpuwhy {
namespace {

TimeNs MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

}  // namespace

RecordingFile::RecordingFile(std::string path, std::string target, std::string partial, int fd)
    : path_(std::move(path)), target_(std::move(target)), partial_(std::move(partial)), fd_(fd) {
  // windowBits 15 + 16: a gzip wrapper, so the finished file is an ordinary .gz.
  zs_open_ = deflateInit2(&zs_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  if (!zs_open_) failed_ = Internal("{}: zlib initialisation failed", path_);
}

StatusOr<std::unique_ptr<RecordingFile>> RecordingFile::Create(const std::string& path) {
  if (path.empty()) return InvalidArgument("no recording file name");
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return InvalidArgument("{}: is a directory", path);
  if (exists && !S_ISREG(st.st_mode)) {  // a device or a FIFO cannot be replaced
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return IoError("{}: cannot write: {}", path, std::strerror(errno));
    return std::unique_ptr<RecordingFile>(new RecordingFile(path, path, path, fd));
  }
  std::string target = path;
  char resolved[PATH_MAX];
  if (exists && ::realpath(path.c_str(), resolved) != nullptr) target = resolved;
  // Unique while written: a second recorder of the same PATH, or a symlink planted where the
  // partial file goes, never shares or redirects its bytes.
  std::string partial;
  int fd = CreatePartialFile(target, 0666, partial);
  if (fd < 0) return IoError("{}: cannot write: {}", path, std::strerror(errno));
  if (exists) ::fchmod(fd, st.st_mode & 07777);  // the new file keeps the old one's permissions
  auto file = std::unique_ptr<RecordingFile>(new RecordingFile(path, target, partial, fd));
  if (Status failed = file->failed_; !failed.ok()) {
    file->Discard();
    return failed;
  }
  return file;
}

RecordingFile::~RecordingFile() {
  if (zs_open_) deflateEnd(&zs_);
  if (fd_ >= 0) ::close(fd_);
}

Status RecordingFile::WriteAll(const unsigned char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("{}: write failed: {}", partial_, std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Compresses |bytes| and writes what zlib gives; Z_SYNC_FLUSH ends on a byte boundary with
// everything so far decodable, Z_FINISH adds the gzip trailer.
Status RecordingFile::Deflate(std::string_view bytes, int flush) {
  zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs_.avail_in = static_cast<uInt>(bytes.size());
  unsigned char out[1 << 16];
  int rc = Z_OK;
  do {
    zs_.next_out = out;
    zs_.avail_out = sizeof(out);
    rc = deflate(&zs_, flush);
    if (rc == Z_STREAM_ERROR) return Internal("{}: zlib failed", path_);
    RETURN_IF_ERROR(WriteAll(out, sizeof(out) - zs_.avail_out));
  } while (zs_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  return Status::Ok();
}

Status RecordingFile::Append(const MetricSeriesSet& set, bool now) {
  if (!failed_.ok() || fd_ < 0) return failed_;
  const TimeNs t = MonotonicNs();
  if (!now && t - last_append_ < kRecordingFlushInterval) return Status::Ok();
  last_append_ = t;
  chunk_.clear();
  encoder_.EncodeNew(set, chunk_);
  // One chunk is at most a flush interval of samples: far below zlib's 4 GiB per call.
  failed_ = Deflate(chunk_, Z_SYNC_FLUSH);
  return failed_;
}

Status RecordingFile::Finish(const MetricSeriesSet& set) {
  if (fd_ < 0) return failed_.ok() ? Internal("{}: finished twice", path_) : failed_;
  RETURN_IF_ERROR(Append(set, /*now=*/true));
  chunk_.clear();
  RecordingEncoder::EncodeEnd(chunk_);
  failed_ = Deflate(chunk_, Z_FINISH);
  RETURN_IF_ERROR(failed_);
  const int error = SyncAndClose(fd_, /*sync=*/partial_ != target_);
  fd_ = -1;
  if (error != 0) {
    failed_ = IoError("{}: write failed: {}", partial_, std::strerror(error));
    return failed_;
  }
  if (partial_ == target_) return Status::Ok();
  if (::rename(partial_.c_str(), target_.c_str()) != 0) {
    failed_ = IoError("{}: cannot replace with {}: {}", path_, partial_, std::strerror(errno));
    return failed_;
  }
  SyncDirectoryOf(target_);
  return Status::Ok();
}

std::string RecordingFile::Leftover() {
  if (partial_ == target_) return "";
  struct stat st {};
  if (::stat(partial_.c_str(), &st) == 0 && st.st_size > 0)
    return "; what was recorded is in " + partial_;
  // Nothing reached the disk (full from the start): no empty file to point at.
  ::unlink(partial_.c_str());
  return "; nothing was recorded";
}

void RecordingFile::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (partial_ != target_) ::unlink(partial_.c_str());
}

}  // namespace gpuwhy
