// LEB128 varints with zigzag for signed values: the compact integer columns of gpuwhy
// recordings (docs/recording-format.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwhy {

inline void AppendVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

inline void AppendZigzag(std::string& out, int64_t v) {
  AppendVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

inline void AppendDouble(std::string& out, double v) {
  char bytes[8];
  std::memcpy(bytes, &v, 8);  // little-endian hosts only (x86-64, aarch64)
  out.append(bytes, 8);
}

// Reads from |in| at |pos|, advancing it; nullopt when the bytes end early.
inline std::optional<uint64_t> ReadVarint(std::string_view in, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && pos < in.size(); shift += 7) {
    auto byte = static_cast<uint8_t>(in[pos++]);
    v |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return std::nullopt;
}

inline std::optional<int64_t> ReadZigzag(std::string_view in, size_t& pos) {
  std::optional<uint64_t> u = ReadVarint(in, pos);
  if (!u) return std::nullopt;
  return static_cast<int64_t>(*u >> 1) ^ -static_cast<int64_t>(*u & 1);
}

inline std::optional<double> ReadDouble(std::string_view in, size_t& pos) {
  if (pos + 8 > in.size()) return std::nullopt;
  double v = 0;
  std::memcpy(&v, in.data() + pos, 8);
  pos += 8;
  return v;
}

}  // namespace gpuwhy
