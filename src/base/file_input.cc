#include "base/file_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "base/atomic_file.h"
#include "base/input_limits.h"

namespace gpuwhy {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

StatusOr<size_t> ReadSome(int fd, char* dst, size_t capacity) {
  while (true) {
    ssize_t n = ::read(fd, dst, capacity);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    return IoError("read failed: {}", std::strerror(errno));
  }
}

class PlainSource : public ByteSource {
 public:
  PlainSource(std::unique_ptr<FileDescriptor> fd, uint64_t size, std::string prefix)
      : fd_(std::move(fd)), prefix_(std::move(prefix)) {
    file_size_ = size;
  }
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    size_t copied = 0;
    if (prefix_pos_ < prefix_.size()) {
      copied = std::min(capacity, prefix_.size() - prefix_pos_);
      std::memcpy(dst, prefix_.data() + prefix_pos_, copied);
      prefix_pos_ += copied;
      offset_ += copied;
      return copied;
    }
    auto n = ReadSome(fd_->get(), dst, capacity);
    if (n.ok()) offset_ += *n;
    return n;
  }
  Compression compression() const override { return Compression::kNone; }
  uint64_t file_offset() const override { return offset_; }

 private:
  std::unique_ptr<FileDescriptor> fd_;
  std::string prefix_;  // bytes already read to sniff the magic
  size_t prefix_pos_ = 0;
  uint64_t offset_ = 0;
};

class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<FileDescriptor> fd, uint64_t size, std::string prefix)
      : fd_(std::move(fd)), input_(kInputSize) {
    file_size_ = size;
    std::memcpy(input_.data(), prefix.data(), prefix.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(prefix.size());
    offset_ = prefix.size();
    // 15 + 32: zlib or gzip header, auto-detected.
    init_ok_ = inflateInit2(&stream_, 15 + 32) == Z_OK;
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (!init_ok_) return Internal("zlib initialisation failed");
    if (finished_) {
      if (!pending_error_.empty()) {
        std::string message = std::move(pending_error_);
        pending_error_.clear();
        return Status(StatusCode::kDataLoss, message);
      }
      return size_t{0};
    }
    stream_.next_out = reinterpret_cast<Bytef*>(dst);
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
    while (stream_.avail_out > 0) {
      if (stream_.avail_in == 0) {
        auto n = ReadSome(fd_->get(), input_.data(), input_.size());
        if (!n.ok()) return n.status();
        if (*n == 0) {
          size_t produced = Produced(dst);
          if (produced > 0) return produced;
          finished_ = true;
          if (saw_stream_end_) return size_t{0};
          return Status(StatusCode::kDataLoss,
                        fmt::format("gzip stream ends early at compressed byte {}", offset_));
        }
        offset_ += *n;
        stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
        stream_.avail_in = static_cast<uInt>(*n);
      }
      bool at_member_start = saw_stream_end_;
      saw_stream_end_ = false;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // Concatenated gzip members are legal: continue with the next one.
        saw_stream_end_ = true;
        inflateReset(&stream_);
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        finished_ = true;
        // Padding after the last member is common (tape-style writers): a clean end.
        if (at_member_start) return Produced(dst);
        std::string message = DescribeInflateError();
        size_t produced = Produced(dst);
        if (produced == 0) return Status(StatusCode::kDataLoss, message);
        pending_error_ = std::move(message);
        return produced;
      }
    }
    return Produced(dst);
  }
  Compression compression() const override { return Compression::kGzip; }
  uint64_t file_offset() const override { return offset_ - stream_.avail_in; }

 private:
  static constexpr size_t kInputSize = 1 << 20;
  // zlib checks each member's trailer: its CRC-32 and ISIZE (length mod 2^32). A mismatch means
  // the bytes already given differ from what was compressed, so it is named as such.
  std::string DescribeInflateError() const {
    std::string_view why = stream_.msg ? stream_.msg : "?";
    if (why == "incorrect data check") {
      return fmt::format(
          "gzip CRC-32 mismatch at compressed byte {}: the decompressed data is "
          "not what was written (the file is corrupt)",
          file_offset());
    }
    if (why == "incorrect length check") {
      return fmt::format(
          "gzip length (ISIZE) mismatch at compressed byte {}: the decompressed "
          "data is not what was written (the file is corrupt)",
          file_offset());
    }
    return fmt::format("corrupt gzip data near compressed byte {}: {}", file_offset(), why);
  }
  size_t Produced(const char* dst) const {
    return reinterpret_cast<const char*>(stream_.next_out) - dst;
  }

  std::unique_ptr<FileDescriptor> fd_;
  std::vector<char> input_;
  z_stream stream_{};
  bool init_ok_ = false;
  bool finished_ = false;
  bool saw_stream_end_ = false;
  std::string pending_error_;  // reported on the call after the last good bytes
  uint64_t offset_ = 0;
};

// Inflates on a second thread into a bounded ring of chunks while the caller parses the
// bytes before them: a gzip trace then costs about max(inflate, parse) instead of their sum,
// in the memory of the ring. The first kDirectBytes are read on the caller's thread, so
// reading a file's head (the input classifier) never starts a thread. The bytes, their
// order and the error after the last good byte are the inner source's.
class PrefetchSource : public ByteSource {
 public:
  explicit PrefetchSource(std::unique_ptr<ByteSource> inner)
      : inner_(std::move(inner)), compression_(inner_->compression()) {
    file_size_ = inner_->file_size();
  }
  ~PrefetchSource() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    if (!worker_.joinable()) {
      if (direct_bytes_ < kDirectBytes || capacity == 0) {
        StatusOr<size_t> n = inner_->Read(dst, capacity);
        if (n.ok()) direct_bytes_ += *n;
        offset_ = inner_->file_offset();
        return n;
      }
      worker_ = std::thread([this] { Fill(); });
    }
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return filled_ > 0; });
    Chunk& c = ring_[head_];
    lock.unlock();
    if (c.kind == Chunk::kError) {
      c.kind = Chunk::kEnd;  // the error is told once; reads after it see the end
      return c.error;
    }
    if (c.kind == Chunk::kEnd) return size_t{0};
    size_t n = std::min(capacity, c.size - c.pos);
    std::memcpy(dst, c.data.data() + c.pos, n);
    c.pos += n;
    offset_ = c.offset_after;
    if (c.pos == c.size) {
      lock.lock();
      head_ = (head_ + 1) % kChunks;
      --filled_;
      lock.unlock();
      changed_.notify_all();
    }
    return n;
  }
  Compression compression() const override { return compression_; }
  uint64_t file_offset() const override { return offset_; }

 private:
  static constexpr size_t kChunks = 4;
  static constexpr size_t kChunkBytes = 1 << 20;
  static constexpr uint64_t kDirectBytes = 4 << 20;

  struct Chunk {
    enum Kind { kData, kEnd, kError } kind = kData;
    std::vector<char> data;
    size_t size = 0;
    size_t pos = 0;
    uint64_t offset_after = 0;  // the inner source's file offset once this chunk was read
    Status error;
  };

  // The worker: fills free slots in order until the end, an error or the destructor.
  void Fill() {
    size_t tail = head_;
    while (true) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || filled_ < kChunks; });
        if (stop_) return;
      }
      Chunk& c = ring_[tail];  // free: the reader touches only filled slots
      c.data.resize(kChunkBytes);
      c.pos = 0;
      StatusOr<size_t> n = inner_->Read(c.data.data(), c.data.size());
      c.offset_after = inner_->file_offset();
      c.size = n.ok() ? *n : 0;
      c.kind = !n.ok() ? Chunk::kError : *n == 0 ? Chunk::kEnd : Chunk::kData;
      if (!n.ok()) c.error = n.status();
      {
        std::lock_guard lock(mutex_);
        ++filled_;
      }
      changed_.notify_all();
      if (c.kind != Chunk::kData) return;
      tail = (tail + 1) % kChunks;
    }
  }

  std::unique_ptr<ByteSource> inner_;  // the worker's alone once it runs
  const Compression compression_;
  uint64_t direct_bytes_ = 0;
  uint64_t offset_ = 0;
  std::array<Chunk, kChunks> ring_;
  size_t head_ = 0;    // the reader's slot
  size_t filled_ = 0;  // slots holding a result, from head_ on
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread worker_;
};

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer would wait forever; the file type is checked
  // before anything is read, and reads of what is accepted block as usual.
  int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw < 0) return IoError("{}: cannot open: {}", path, std::strerror(errno));
  auto fd = std::make_unique<FileDescriptor>(raw);
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0)
    return IoError("{}: cannot stat: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return InvalidArgument("{}: is a directory", path);
  // Inputs are read more than once (classified by their head, then imported): a stream cannot
  // be. Character devices (/dev/null, a terminal) stay readable.
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    return InvalidArgument("{}: is a {}, not a regular file: save the stream to a file first", path,
                           S_ISFIFO(st.st_mode) ? "FIFO (named pipe)" : "socket");
  }
  const int flags = ::fcntl(fd->get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd->get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
    return IoError("{}: cannot make blocking: {}", path, std::strerror(errno));
  std::string prefix(2, '\0');
  size_t have = 0;
  while (have < 2) {
    auto n = ReadSome(fd->get(), prefix.data() + have, 2 - have);
    if (!n.ok()) return n.status().WithContext(path);
    if (*n == 0) break;
    have += *n;
  }
  prefix.resize(have);
  auto size = static_cast<uint64_t>(st.st_size);
  if (have == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f &&
      static_cast<unsigned char>(prefix[1]) == 0x8b) {
    return std::unique_ptr<ByteSource>(
        new PrefetchSource(std::make_unique<GzipSource>(std::move(fd), size, prefix)));
  }
  return std::unique_ptr<ByteSource>(new PlainSource(std::move(fd), size, prefix));
}

StatusOr<std::string> ReadFileHead(const std::string& path, size_t bytes) {
  ASSIGN_OR_RETURN(auto source, OpenByteSource(path));
  std::string head(bytes, '\0');
  size_t filled = 0;
  while (filled < head.size()) {
    StatusOr<size_t> n = source->Read(head.data() + filled, head.size() - filled);
    if (!n.ok() || *n == 0) break;
    filled += *n;
  }
  head.resize(filled);
  return head;
}

namespace {

constexpr size_t kReadChunk = 1 << 20;

// The size of |source|'s content, counting no further than |limit| + 1 bytes; memory: one chunk.
StatusOr<uint64_t> CountContent(ByteSource& source, uint64_t limit) {
  std::string scratch(kReadChunk, '\0');
  uint64_t total = 0;
  while (total <= limit) {
    ASSIGN_OR_RETURN(size_t n, source.Read(scratch.data(), scratch.size()));
    if (n == 0) break;
    total += n;
  }
  return total;
}

}  // namespace

StatusOr<std::string> ReadWholeFile(const std::string& path, InputLimit kind) {
  StatusOr<uint64_t> limit = MaxInputBytes(kind);
  if (!limit.ok()) return limit.status().WithContext(path);
  ASSIGN_OR_RETURN(auto source, OpenByteSource(path));
  const bool gzip = source->compression() == Compression::kGzip;
  auto refuse = [&] {
    return InvalidArgument("{}: {}content {}", path, gzip ? "decompressed " : "",
                           DescribeInputLimit(kind, *limit));
  };
  // A plain file says its size up front; a gzip stream only once inflated. So a limited gzip
  // is inflated twice: once counting (a bomb is refused holding one chunk), then into one
  // string of that size. A string grown by doubling held the old and the new buffer at its
  // last growth: twice the limit before the refusal.
  uint64_t expected = gzip ? 0 : source->file_size();
  if (*limit > 0 && expected > *limit) return refuse();
  if (gzip && *limit > 0) {
    StatusOr<uint64_t> size = CountContent(*source, *limit);
    if (!size.ok()) return size.status().WithContext(path);
    if (*size > *limit) return refuse();
    expected = *size;
    ASSIGN_OR_RETURN(source, OpenByteSource(path));
  }
  std::string content;
  // One byte more than expected: the read that finds the end needs room to find it.
  if (expected > 0) content.reserve(static_cast<size_t>(expected) + 1);
  while (true) {
    const size_t old = content.size();
    // The file grew since it was sized, or a stream's size is unknown (a character device):
    // the string never grows past the limit and a byte.
    if (*limit > 0 && old > *limit) return refuse();
    if (content.capacity() == old) {
      size_t grown = std::max(2 * content.capacity(), old + kReadChunk);
      content.reserve(*limit > 0 ? std::min<uint64_t>(grown, *limit + 1) : grown);
    }
    const size_t room = std::min(content.capacity() - old, kReadChunk);
    content.resize(old + room);
    auto n = source->Read(content.data() + old, room);
    if (!n.ok()) return n.status().WithContext(path);
    content.resize(old + *n);
    if (*n == 0) return content;
  }
}

StatusOr<std::string> ReadSettingsFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return IoError("{}: cannot open: {}", path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument("{}: not a regular file ({}): name a file of settings", path,
                           S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                                                  : "a special file");
  }
  return ReadWholeFile(path, InputLimit::kConfig);
}

Status WriteWholeFile(const std::string& path, std::string_view content) {
  const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  return WriteFileAtomically(path, content, gzip ? 6 : 0);
}

}  // namespace gpuwhy
