#include "base/output_sink.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace gpuwhy {
namespace {

class PlainSink : public OutputSink {
 public:
  PlainSink(std::string path, FILE* file) : path_(std::move(path)), file_(file) {}
  ~PlainSink() override {
    if (file_ != nullptr) fclose(file_);
  }

  Status Write(std::string_view bytes) override {
    if (file_ == nullptr) return Internal("{}: write after close", path_);
    if (fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      return IoError("{}: write failed: {}", path_, strerror(errno));
    }
    bytes_written_ += bytes.size();
    return Status::Ok();
  }

  Status Close() override {
    if (file_ == nullptr) return Status::Ok();
    int rc = fclose(file_);
    file_ = nullptr;
    if (rc != 0) return IoError("{}: close failed: {}", path_, strerror(errno));
    return Status::Ok();
  }

 private:
  std::string path_;
  FILE* file_;
};

class GzipSink : public OutputSink {
 public:
  GzipSink(std::string path, gzFile file) : path_(std::move(path)), file_(file) {}
  ~GzipSink() override {
    if (file_ != nullptr) gzclose(file_);
  }

  Status Write(std::string_view bytes) override {
    if (file_ == nullptr) return Internal("{}: write after close", path_);
    // gzwrite takes an unsigned length: feed it in pieces well below 4 GiB.
    constexpr size_t kPiece = size_t{1} << 30;
    for (size_t done = 0; done < bytes.size();) {
      size_t piece = std::min(kPiece, bytes.size() - done);
      int wrote = gzwrite(file_, bytes.data() + done, static_cast<unsigned>(piece));
      if (wrote != static_cast<int>(piece)) {
        int errnum = 0;
        return IoError("{}: gzip write failed: {}", path_, gzerror(file_, &errnum));
      }
      done += piece;
    }
    bytes_written_ += bytes.size();
    return Status::Ok();
  }

  Status Close() override {
    if (file_ == nullptr) return Status::Ok();
    int rc = gzclose(file_);
    file_ = nullptr;
    if (rc != Z_OK) return IoError("{}: gzip close failed ({})", path_, rc);
    return Status::Ok();
  }

 private:
  std::string path_;
  gzFile file_;
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
  if (HasGzipSuffix(path)) {
    // Level 1: synth output feeds GB-scale benchmarks, where level 6 would make
    // compression, not JSON formatting, the bottleneck (several times slower).
    gzFile file = gzopen(path.c_str(), "wb1");
    if (file == nullptr) return IoError("{}: cannot open for writing: {}", path, strerror(errno));
    gzbuffer(file, 1 << 20);
    return std::unique_ptr<OutputSink>(new GzipSink(path, file));
  }
  FILE* file = fopen(path.c_str(), "wb");
  if (file == nullptr) return IoError("{}: cannot open for writing: {}", path, strerror(errno));
  return std::unique_ptr<OutputSink>(new PlainSink(path, file));
}

std::unique_ptr<OutputSink> CountingSink() { return std::make_unique<DiscardSink>(); }

}  // namespace gpuwhy
