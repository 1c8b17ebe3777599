// Test helpers: gzip members built in memory, for corrupt, truncated and bomb inputs.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <string_view>

namespace gpuwhy::testing {

// One gzip member holding |count| copies of |fill| followed by |tail|.
inline std::string GzipMember(char fill, size_t count, std::string_view tail = {}) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  const std::string block(1 << 20, fill);
  std::string out;
  char buffer[1 << 16];
  auto deflate_some = [&](const char* data, size_t n, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(n);
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof(buffer);
      deflate(&z, flush);
      out.append(buffer, sizeof(buffer) - z.avail_out);
    } while (z.avail_out == 0);
  };
  for (size_t left = count; left > 0;) {
    size_t n = std::min(left, block.size());
    deflate_some(block.data(), n, Z_NO_FLUSH);
    left -= n;
  }
  deflate_some(tail.data(), tail.size(), Z_FINISH);
  deflateEnd(&z);
  return out;
}

inline std::string Gzip(std::string_view content) { return GzipMember('\0', 0, content); }

inline void WriteRawFile(const std::string& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace gpuwhy::testing
