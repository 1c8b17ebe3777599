#include "ingest/kineto/bracket_scanner.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpuwhy {
namespace {

// Bit i = XOR of bits 0..i: marks the bytes from an opening quote up to its closing one.
uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

uint64_t LowBits(size_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

#if defined(__SSE2__)
// 64 bytes loaded once and compared against several characters.
struct Block64 {
  explicit Block64(const char* data) {
    for (int i = 0; i < 4; ++i)
      chunks[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i));
  }
  uint64_t Match(char c) const { return MatchIn(chunks, c); }
  // '[' | 0x20 == '{' and ']' | 0x20 == '}': one compare finds both kinds of bracket.
  uint64_t MatchFolded(char c) const {
    const __m128i bit5 = _mm_set1_epi8(0x20);
    __m128i folded[4];
    for (int i = 0; i < 4; ++i) folded[i] = _mm_or_si128(chunks[i], bit5);
    return MatchIn(folded, c);
  }
  static uint64_t MatchIn(const __m128i* data, char c) {
    const __m128i needle = _mm_set1_epi8(c);
    uint64_t mask = 0;
    for (int i = 0; i < 4; ++i) {
      auto bits = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(data[i], needle)));
      mask |= static_cast<uint64_t>(bits) << (16 * i);
    }
    return mask;
  }
  __m128i chunks[4];
};
#endif

}  // namespace

BracketScanner::Masks BracketScanner::ClassifyScalar(const char* block, size_t valid,
                                                     bool in_string, bool escape) {
  Masks m;
  for (size_t i = 0; i < valid; ++i) {
    char c = block[i];
    if (escape) {
      escape = false;
      continue;
    }
    if (in_string) {
      if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      m.open |= uint64_t{1} << i;
    } else if (c == '}' || c == ']') {
      m.close |= uint64_t{1} << i;
    }
  }
  m.in_string_after = in_string;
  m.escape_after = escape;
  return m;
}

BracketScanner::Masks BracketScanner::Classify(const char* block, size_t valid, bool in_string,
                                               bool escape) {
#if defined(__SSE2__)
  if (!escape) {
    Block64 b(block);
    uint64_t in_range = LowBits(valid);
    if ((b.Match('\\') & in_range) == 0) {
      uint64_t inside = PrefixXor(b.Match('"') & in_range) ^ (in_string ? ~uint64_t{0} : 0);
      Masks m;
      m.open = b.MatchFolded('{') & ~inside & in_range;
      m.close = b.MatchFolded('}') & ~inside & in_range;
      m.in_string_after = (valid == 0 ? in_string : ((inside >> (valid - 1)) & 1) != 0);
      return m;
    }
  }
#endif
  return ClassifyScalar(block, valid, in_string, escape);
}

size_t BracketScanner::FindEnd(const char* data, size_t begin, size_t end) {
  size_t block = begin;
  Masks masks;
  uint64_t keep = ~uint64_t{0};
  if (cached_ && begin >= block_start_ && begin < block_start_ + 64) {
    // Between two events there are only commas and spaces: the cached block still holds.
    block = block_start_;
    masks = block_;
    keep = ~LowBits(begin - block_start_);
  } else {
    masks = Classify(data + begin, std::min<size_t>(64, end - begin), false, false);
  }
  int64_t depth = 0;
  while (true) {
    size_t valid = std::min<size_t>(64, end - block);
    uint64_t structural = (masks.open | masks.close) & keep;
    while (structural != 0) {
      int bit = __builtin_ctzll(structural);
      if ((masks.open >> bit) & 1) {
        ++depth;
      } else if (--depth == 0) {
        cached_ = valid == 64;
        block_start_ = block;
        block_ = masks;
        return block + bit + 1;
      }
      structural &= structural - 1;
    }
    keep = ~uint64_t{0};
    if (valid < 64) break;
    block += 64;
    if (block >= end) break;
    masks = Classify(data + block, std::min<size_t>(64, end - block), masks.in_string_after,
                     masks.escape_after);
  }
  cached_ = false;
  return kNotFound;
}

}  // namespace gpuwhy
