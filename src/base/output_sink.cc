#include "base/output_sink.h"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "base/atomic_file.h"

namespace gpuwhy {
namespace {

// Both sinks write through a FILE* or gzFile on a dup() of the AtomicFile's descriptor: Close()
// flushes it, then commits the file; a sink destroyed unclosed leaves the old target as it was.
class PlainSink : public OutputSink {
 public:
  PlainSink(std::unique_ptr<AtomicFile> file, FILE* stream)
      : file_(std::move(file)), stream_(stream) {}
  ~PlainSink() override {
    if (stream_ != nullptr) fclose(stream_);
  }

  Status Write(std::string_view bytes) override {
    if (stream_ == nullptr) return Internal("{}: write after close", file_->path());
    if (fwrite(bytes.data(), 1, bytes.size(), stream_) != bytes.size()) {
      return IoError("{}: write failed: {}", file_->path(), strerror(errno));
    }
    bytes_written_ += bytes.size();
    return Status::Ok();
  }

  Status Close() override {
    if (stream_ == nullptr) return Status::Ok();
    int rc = fclose(stream_);
    stream_ = nullptr;
    if (rc != 0) return IoError("{}: write failed: {}", file_->path(), strerror(errno));
    return file_->Commit();
  }

 private:
  std::unique_ptr<AtomicFile> file_;
  FILE* stream_;
};

class GzipSink : public OutputSink {
 public:
  GzipSink(std::unique_ptr<AtomicFile> file, gzFile stream)
      : file_(std::move(file)), stream_(stream) {}
  ~GzipSink() override {
    if (stream_ != nullptr) gzclose(stream_);
  }

  Status Write(std::string_view bytes) override {
    if (stream_ == nullptr) return Internal("{}: write after close", file_->path());
    // gzwrite takes an unsigned length: feed it in pieces well below 4 GiB.
    constexpr size_t kPiece = size_t{1} << 30;
    for (size_t done = 0; done < bytes.size();) {
      size_t piece = std::min(kPiece, bytes.size() - done);
      int wrote = gzwrite(stream_, bytes.data() + done, static_cast<unsigned>(piece));
      if (wrote != static_cast<int>(piece)) {
        int errnum = 0;
        return IoError("{}: gzip write failed: {}", file_->path(), gzerror(stream_, &errnum));
      }
      done += piece;
    }
    bytes_written_ += bytes.size();
    return Status::Ok();
  }

  Status Close() override {
    if (stream_ == nullptr) return Status::Ok();
    int rc = gzclose(stream_);
    stream_ = nullptr;
    if (rc != Z_OK) return IoError("{}: gzip close failed ({})", file_->path(), rc);
    return file_->Commit();
  }

 private:
  std::unique_ptr<AtomicFile> file_;
  gzFile stream_;
};

class DiscardSink : public OutputSink {
 public:
  Status Write(std::string_view bytes) override {
    bytes_written_ += bytes.size();
    return Status::Ok();
  }
  Status Close() override { return Status::Ok(); }
};

}  // namespace

bool HasGzipSuffix(std::string_view path) {
  return path.size() > 3 && path.substr(path.size() - 3) == ".gz";
}

StatusOr<std::unique_ptr<OutputSink>> OpenOutputSink(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  int fd = ::dup(file->fd());
  if (HasGzipSuffix(path)) {
    // Level 1: synth output feeds GB-scale benchmarks, where level 6 would make
    // compression, not JSON formatting, the bottleneck (several times slower).
    gzFile stream = fd < 0 ? nullptr : gzdopen(fd, "wb1");
    if (stream == nullptr) {
      if (fd >= 0) ::close(fd);
      return IoError("{}: cannot open for writing: {}", path, strerror(errno));
    }
    gzbuffer(stream, 1 << 20);
    return std::unique_ptr<OutputSink>(new GzipSink(std::move(file), stream));
  }
  FILE* stream = fd < 0 ? nullptr : fdopen(fd, "wb");
  if (stream == nullptr) {
    if (fd >= 0) ::close(fd);
    return IoError("{}: cannot open for writing: {}", path, strerror(errno));
  }
  return std::unique_ptr<OutputSink>(new PlainSink(std::move(file), stream));
}

std::unique_ptr<OutputSink> CountingSink() { return std::make_unique<DiscardSink>(); }

}  // namespace gpuwhy
