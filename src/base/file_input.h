// Sequential reading of input files, transparently gunzipping when the bytes start with
// the gzip magic (never by file name). Streaming keeps memory flat for multi-GB traces. Each
// gzip member's CRC-32 and length are checked at its end (a mismatch is kDataLoss); FIFOs and
// sockets are refused at open (inputs are read more than once), never waited on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/input_limits.h"
#include "base/status.h"

namespace gpuwhy {

enum class Compression { kNone, kGzip };

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to |capacity| bytes of (decompressed) content into |dst|. Returns 0 at the
  // end. A gzip stream that stops early returns kDataLoss after all bytes it could give.
  virtual StatusOr<size_t> Read(char* dst, size_t capacity) = 0;
  virtual Compression compression() const = 0;
  // Bytes consumed from the file so far (compressed bytes for gzip).
  virtual uint64_t file_offset() const = 0;
  uint64_t file_size() const { return file_size_; }

 protected:
  uint64_t file_size_ = 0;
};

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path);

// The first |bytes| of |path|'s content (decompressed), fewer when it is shorter; what could be
// read before an error in the stream is kept. An error only when the file cannot be opened.
StatusOr<std::string> ReadFileHead(const std::string& path, size_t bytes);

// Reads a whole (small) file, decompressing gzip. For configs and logs, not traces. Content
// over the limit of |kind| (base/input_limits.h) is refused with "PATH: ... over the N MiB
// limit for a KIND (...)", having read no more than the limit and a chunk.
StatusOr<std::string> ReadWholeFile(const std::string& path, InputLimit kind = InputLimit::kOther);

// Reads a small settings file a user names (--config): a regular file only, since a FIFO,
// /dev/zero or /dev/urandom never ends or never arrives; at most the `config` input limit.
StatusOr<std::string> ReadSettingsFile(const std::string& path);

// Writes |content| to |path|, gzip-compressed when the name ends in ".gz", all or nothing
// (base/atomic_file.h).
Status WriteWholeFile(const std::string& path, std::string_view content);

}  // namespace gpuwhy
