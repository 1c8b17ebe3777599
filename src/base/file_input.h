// Sequential reading of input files, transparently gunzipping when the bytes start with
// the gzip magic (never by file name). Streaming keeps memory flat for multi-GB traces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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

// Reads a whole (small) file, decompressing gzip. For configs and logs, not traces.
StatusOr<std::string> ReadWholeFile(const std::string& path);

// Writes |content| to |path|, gzip-compressed when the name ends in ".gz", all or nothing
// (base/atomic_file.h).
Status WriteWholeFile(const std::string& path, std::string_view content);

}  // namespace gpuwhy
