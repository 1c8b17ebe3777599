// Finds where a JSON object or array ends, 64 bytes at a time: quotes, brackets and
// backslashes become bit masks (the simdjson stage-1 idea), strings are masked out with
// a prefix XOR, and only the remaining brackets are visited. The last block's masks are
// kept, so consecutive trace events sharing a block are not classified twice.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuwhy {

class BracketScanner {
 public:
  static constexpr size_t kNotFound = static_cast<size_t>(-1);

  // |data| holds valid bytes in [0, end) and at least 64 readable bytes past |end|.
  // data[begin] is '{' or '['. Returns one past the matching bracket, or kNotFound when
  // the value does not end before |end|.
  size_t FindEnd(const char* data, size_t begin, size_t end);
  // Call whenever the bytes under the cached block move or change.
  void Invalidate() { cached_ = false; }

 private:
  struct Masks {
    uint64_t open = 0;   // '{' or '[' outside strings
    uint64_t close = 0;  // '}' or ']' outside strings
    bool in_string_after = false;
    bool escape_after = false;  // the block ends with a pending backslash escape
  };
  static Masks Classify(const char* block, size_t valid, bool in_string, bool escape);
  static Masks ClassifyScalar(const char* block, size_t valid, bool in_string, bool escape);

  bool cached_ = false;
  size_t block_start_ = 0;
  Masks block_;
};

}  // namespace gpuwhy
